"""The request nonces' key without the index Django adds to a text primary key for LIKE (issue 34).

Nonces are only ever looked up by their whole key (the primary key's own index), and one is
written with every signed request: the pattern index was one more index written each time, read
by nothing.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("core", "0008_idempotency_lock_held_between_statements")]
    operations = [
        migrations.RunSQL(
            "DROP INDEX IF EXISTS core_requestnonce_key_b7ecb623_like",
            "CREATE INDEX IF NOT EXISTS core_requestnonce_key_b7ecb623_like ON core_requestnonce (key varchar_pattern_ops)",
        )
    ]
