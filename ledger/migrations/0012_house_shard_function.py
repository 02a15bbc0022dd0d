"""`ledger_house_shard(key)`: the one rule of which house shard a movement posts to (ledger/sql/),
which settlement in SQL and `ledger.services.house_account` both use; and the functions nothing
calls any more go: `ledger_request_hash` (its recipe is `ledger_post_entries`' own) and
`ledger_check_posting_entry` (the per-row check that the statement-level `ledger_postings_balance`
trigger replaced)."""

from django.db import migrations

from core.sql_functions import function_create, function_drop


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_squashed_0011_post_entries_together")]
    operations = [
        function_create("ledger", "ledger_house_shard"),
        function_drop("ledger_request_hash", "text, text, text, bigint, bigint[], bigint[]"),
        function_drop("ledger_check_posting_entry", ""),
    ]
