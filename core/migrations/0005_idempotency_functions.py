"""`core_idempotency_claim` and `core_idempotency_store`: the idempotency record's two statements as
functions of the schema, so that another app's statement can carry them (placing a round claims
the key in the statement that opens the round and stores the response in the one that writes it:
casino/sql.py), and `core/sql.py` runs the same two functions on their own. One implementation."""

from django.db import migrations

FUNCTIONS = """
CREATE OR REPLACE FUNCTION core_idempotency_claim(p_lock bigint, p_scope text, p_key text)
RETURNS TABLE (free boolean, request_hash text, response_status integer, response_body jsonb,
               response_content_type text) LANGUAGE plpgsql AS $$
BEGIN  -- the key's lock until the end of the transaction, if no other request holds it; the stored response
    free := pg_try_advisory_xact_lock(p_lock);
    SELECT r.request_hash, r.response_status, r.response_body, r.response_content_type
      INTO request_hash, response_status, response_body, response_content_type
      FROM core_idempotencyrecord r
     WHERE r.scope = p_scope AND r.key = p_key;
    RETURN NEXT;
END $$;

CREATE OR REPLACE FUNCTION core_idempotency_store(
    p_scope text, p_key text, p_hash text, p_status integer, p_body jsonb, p_content_type text
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN  -- false: a response was stored for this key already
    INSERT INTO core_idempotencyrecord (scope, key, request_hash, response_status, response_body,
                                        response_content_type, created_at)
    VALUES (p_scope, p_key, p_hash, p_status, p_body, p_content_type, statement_timestamp())
    ON CONFLICT (scope, key) DO NOTHING;
    RETURN FOUND;
END $$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTIONS)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "DROP FUNCTION core_idempotency_claim(bigint, text, text);"
            " DROP FUNCTION core_idempotency_store(text, text, text, integer, jsonb, text)"
        )


class Migration(migrations.Migration):
    dependencies = [("core", "0004_fewer_indexes_per_round")]
    operations = [migrations.RunPython(forward, backward)]
