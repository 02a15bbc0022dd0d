"""A replayed idempotent request answers the first answer's bytes and headers (API.md): the first
answer is stored as the text it was sent as (`response_text`; a jsonb body gave equal JSON with its
keys reordered) with the headers a client may read from it (`response_headers`: `Content-Type`,
`Content-Language`, `Retry-After`, `X-Request-ID`). Records stored before keep their jsonb
`response_body`, which the claim answers as text while they are kept (48 hours).

`core_idempotency_claim` and `core_idempotency_store` as they are now, whole (migration 0005's
bodies, with the new columns)."""

import importlib

from django.db import migrations, models

FUNCTIONS = """
DROP FUNCTION core_idempotency_claim(bigint, text, text);
CREATE FUNCTION core_idempotency_claim(p_lock bigint, p_scope text, p_key text)
RETURNS TABLE (free boolean, request_hash text, response_status integer, response_text text,
               response_content_type text, response_headers jsonb) LANGUAGE plpgsql AS $$
BEGIN  -- the key's lock until the end of the transaction, if no other request holds it; the stored response
    free := pg_try_advisory_xact_lock(p_lock);
    SELECT r.request_hash, r.response_status, coalesce(r.response_text, r.response_body::text),
           r.response_content_type, coalesce(r.response_headers, '{}')
      INTO request_hash, response_status, response_text, response_content_type, response_headers
      FROM core_idempotencyrecord r
     WHERE r.scope = p_scope AND r.key = p_key;
    RETURN NEXT;
END $$;

DROP FUNCTION core_idempotency_store(text, text, text, integer, jsonb, text);
CREATE FUNCTION core_idempotency_store(
    p_scope text, p_key text, p_hash text, p_status integer, p_text text, p_content_type text, p_headers jsonb
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN  -- false: a response was stored for this key already
    INSERT INTO core_idempotencyrecord (scope, key, request_hash, response_status, response_text,
                                        response_content_type, response_headers, created_at)
    VALUES (p_scope, p_key, p_hash, p_status, p_text, p_content_type, p_headers, statement_timestamp())
    ON CONFLICT (scope, key) DO NOTHING;
    RETURN FOUND;
END $$;
"""

BEFORE = """
DROP FUNCTION core_idempotency_claim(bigint, text, text);
DROP FUNCTION core_idempotency_store(text, text, text, integer, text, text, jsonb);
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTIONS)


def backward(apps, schema_editor):
    previous = importlib.import_module("core.migrations.0005_idempotency_functions")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BEFORE)
        cursor.execute(previous.FUNCTIONS)


class Migration(migrations.Migration):
    dependencies = [("core", "0005_idempotency_functions")]
    operations = [
        migrations.AddField("idempotencyrecord", "response_text", models.TextField(null=True)),
        migrations.AddField("idempotencyrecord", "response_headers", models.JSONField(null=True)),
        migrations.RunPython(forward, backward),
    ]
