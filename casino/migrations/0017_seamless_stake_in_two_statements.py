"""A seamless stake in two statements around the wallet's call (issue 34).

* `casino_wallet_debit_create` (new): a pending debit and its audit event in one statement, none
  when a debit of the same request exists already (the request's claim, which was a savepoint, an
  insert and an IntegrityError caught).
* `casino_round_place` acknowledges the debit the partner answered 200 (its attempt, its audit
  event, the call's row) in the statement that places the round and posts its funding and stake.
  Two more parameters (with defaults): the old one is dropped first.

The bodies are casino/sql/<function>.sql. This migration is not reversed: no migration carries a
function body, and the bodies before it are those files as git has them at 031f575.
"""

from django.db import migrations

from core.sql_functions import function_create, function_drop


class Migration(migrations.Migration):
    dependencies = [("casino", "0016_seamless_rounds_at_the_transfer_cost")]
    operations = [
        # Irreversible on purpose (see above): Django refuses to unapply before anything runs.
        migrations.RunPython(migrations.RunPython.noop, reverse_code=None, elidable=False),
        function_drop(
            "casino_round_place", "jsonb, jsonb, text, text, bigint, bigint, bigint, text, text, bigint"
        ),
        function_create("casino", "casino_round_place"),
        function_create("casino", "casino_wallet_debit_create"),
    ]
