"""`core_audit_record`: an audit event written from SQL, for another app's function that changes
state in one statement (placing a round: casino migration 0008). Python writes audit events with
`core.audit.audit_record`; both write the same row."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION core_audit_record(
    p_actor_type text, p_actor_id text, p_action text, p_object_type text, p_object_id text, p_data jsonb
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN  -- PL/pgSQL, not SQL: its statement is planned once per connection, not on every call
    INSERT INTO core_auditevent (actor_type, actor_id, action, object_type, object_id, data, created_at)
    VALUES (p_actor_type, left(p_actor_id, 64), p_action, p_object_type, left(p_object_id, 64), p_data,
            statement_timestamp());
END $$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTION)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP FUNCTION core_audit_record(text, text, text, text, text, jsonb)")


class Migration(migrations.Migration):
    dependencies = [("core", "0002_idempotency_records_commit_with_their_work")]
    operations = [migrations.RunPython(forward, backward)]
