"""Signed requests' nonces in PostgreSQL (core/nonces.py), where a Redis that lost its data cannot
forget them: `core_nonce_claim` records one in a statement of its own, and `core_idempotency_claim`
records the request's nonce in the claim of its Idempotency-Key, the first statement of the
request's work (placing a round: no statement more), answering `nonce_taken` for a nonce used
already (then it takes no lock and reads nothing). The function as it is now, whole (migration
0006's body, with the nonce)."""

import importlib

from django.db import migrations, models

FUNCTIONS = """
CREATE FUNCTION core_nonce_claim(p_nonce text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN  -- false: the nonce was used already
    -- Its transaction (the statement's own, at authentication) commits without waiting for the
    -- WAL flush, which cost a read more than the read itself (docs/BENCHMARKS.md). Any later
    -- commit of the request's work flushes the WAL past this record, so a nonce is lost (to a
    -- crash of PostgreSQL in the next fraction of a second) only with a request that changed nothing.
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO core_requestnonce (key, created_at) VALUES (p_nonce, statement_timestamp())
    ON CONFLICT (key) DO NOTHING;
    RETURN FOUND;
END $$;

DROP FUNCTION core_idempotency_claim(bigint, text, text);
CREATE FUNCTION core_idempotency_claim(p_lock bigint, p_scope text, p_key text, p_nonce text)
RETURNS TABLE (free boolean, request_hash text, response_status integer, response_text text,
               response_content_type text, response_headers jsonb, nonce_taken boolean) LANGUAGE plpgsql AS $$
BEGIN
    IF p_nonce IS NOT NULL THEN  -- the signed request's nonce, recorded with the request's work
        INSERT INTO core_requestnonce (key, created_at) VALUES (p_nonce, statement_timestamp())
        ON CONFLICT (key) DO NOTHING;
        nonce_taken := NOT FOUND;
        IF nonce_taken THEN  -- a replayed request: it takes no lock and reads nothing
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    -- the key's lock until the end of the transaction, if no other request holds it; the stored response
    free := pg_try_advisory_xact_lock(p_lock);
    SELECT r.request_hash, r.response_status, coalesce(r.response_text, r.response_body::text),
           r.response_content_type, coalesce(r.response_headers, '{}')
      INTO request_hash, response_status, response_text, response_content_type, response_headers
      FROM core_idempotencyrecord r
     WHERE r.scope = p_scope AND r.key = p_key;
    RETURN NEXT;
END $$;
"""

BEFORE = """
DROP FUNCTION core_nonce_claim(text);
DROP FUNCTION core_idempotency_claim(bigint, text, text, text);
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTIONS)


def backward(apps, schema_editor):
    previous = importlib.import_module("core.migrations.0006_replay_the_first_answer_as_sent")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(BEFORE)
        cursor.execute("DROP FUNCTION core_idempotency_store(text, text, text, integer, text, text, jsonb)")
        cursor.execute(previous.FUNCTIONS.replace("DROP FUNCTION core_idempotency_claim(bigint, text, text);", "")
                       .replace("DROP FUNCTION core_idempotency_store(text, text, text, integer, jsonb, text);", ""))


class Migration(migrations.Migration):
    dependencies = [("core", "0006_replay_the_first_answer_as_sent")]
    operations = [
        migrations.CreateModel(
            name="RequestNonce",
            fields=[
                ("key", models.CharField(max_length=150, primary_key=True, serialize=False)),
                ("created_at", models.DateTimeField(db_index=True)),
            ],
        ),
        migrations.RunPython(forward, backward),
    ]
