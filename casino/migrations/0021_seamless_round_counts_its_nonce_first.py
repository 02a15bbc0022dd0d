"""A seamless round placed in statements that each commit alone (issue 34).

* `casino_round_place`: the nonce's compare-and-set comes first, before the debit's row is locked,
  so a round whose seed pair was read without its lock still takes the seed pair's lock before the
  debit's (docs/ARCHITECTURE.md "Lock order"); what it writes is unchanged.

The body is casino/sql/casino_round_place.sql; reversed, the body stays.
"""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("casino", "0020_settlement_locks_the_accounts_last")]
    operations = [function_reload("casino", "casino_round_place")]
