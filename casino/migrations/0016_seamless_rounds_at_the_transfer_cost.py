"""Seamless rounds at the transfer path's cost (issue 29 item 2, issue 34), on one house shard rule.

* `casino_rounds_settle` settles seamless rounds as it settles transfer rounds: the payout's
  credit to the partner's seamless account is posted in the same call of `ledger_post_entries`,
  and the credit's wallet call recorded by the same statement. Every settlement goes to the house
  shard of its key (`ledger_house_shard('round:<id>:settle')`), as every other movement does.
  It answers one more column (the credit), so the old one is dropped first.
* `casino_round_place` takes a seamless stake's funding (the debit the partner acknowledged, paid
  from its seamless account into the wallet) and posts it with the stake, by one call of
  `ledger_post_entries`. Three more parameters (with defaults): the old one is dropped first.

The bodies are casino/sql/<function>.sql. This migration is not reversed: no migration carries a
function body, and the bodies before it are those files as git has them at 1f95e2b.
"""

from django.db import migrations

from core.sql_functions import function_create, function_drop


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0001_squashed_0015_table_changes_four_eyes"),
        ("ledger", "0012_house_shard_function"),
    ]
    operations = [
        # Irreversible on purpose (see above): Django refuses to unapply before anything runs.
        migrations.RunPython(migrations.RunPython.noop, reverse_code=None, elidable=False),
        function_drop("casino_rounds_settle", "uuid[], timestamp with time zone, integer"),
        function_drop("casino_round_place", "jsonb, jsonb, text, text, bigint, bigint, bigint"),
        function_create("casino", "casino_rounds_settle"),
        function_create("casino", "casino_round_place"),
    ]
