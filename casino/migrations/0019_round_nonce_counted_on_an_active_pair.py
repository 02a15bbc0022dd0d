"""A round counts its nonce only on a pair still active (issue 34).

* `casino_round_place`: a round placed in statements that each commit alone reads its seed pair
  without locking it; its write counts the nonce only if it is still the pair's next and the pair
  still active, and otherwise writes nothing (CSN01), so the round is run again.

The body is casino/sql/casino_round_place.sql; reversed, the body stays (the added condition holds
for every round placed under the pair's lock, as rounds were before).
"""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0018_credits_record"),
        ("core", "0008_idempotency_lock_held_between_statements"),
    ]
    operations = [function_reload("casino", "casino_round_place")]
