"""`casino_rounds_settle` posts a round's settlement to the house shard of its settlement key
(`ledger_house_shard('round:<id>:settle')`), as every other settlement does: one rule of the
house shard (before: the round id's last byte here, a checksum of the key in Python)."""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0001_squashed_0015_table_changes_four_eyes"),
        ("ledger", "0012_house_shard_function"),
    ]
    operations = [function_reload("casino", "casino_rounds_settle")]
