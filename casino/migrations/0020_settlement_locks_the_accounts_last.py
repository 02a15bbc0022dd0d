"""Settlement locks the accounts last (issue 34).

* `casino_rounds_settle`: the batch marks its rounds and records its credits first, then posts every
  entry by one call of `ledger_post_entries`, which locks the batch's accounts in primary-key order
  (waiting for a round being placed, whose statement holds them briefly) and holds them only to the
  commit. It no longer leaves out the rounds of a player whose accounts are busy.

The body is casino/sql/casino_rounds_settle.sql; reversed, the body stays (it settles every round
the earlier one did, and the ones that one would have left for the next batch).
"""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("casino", "0019_round_nonce_counted_on_an_active_pair")]
    operations = [function_reload("casino", "casino_rounds_settle")]
