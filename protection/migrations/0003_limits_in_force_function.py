"""`protection_limits_in_force`: the one rule of the limit in force (protection/sql/), which
`protection_stake_guards` and `protection.selectors.limit_in_force` both read."""

from django.db import migrations

from core.sql_functions import function_create, function_reload


class Migration(migrations.Migration):
    dependencies = [("protection", "0001_squashed_0002_stake_guards_function")]
    operations = [
        function_create("protection", "protection_limits_in_force"),
        function_reload("protection", "protection_stake_guards"),
    ]
