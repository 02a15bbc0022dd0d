"""Posting in fewer statements (issue #34, docs/BENCHMARKS.md): one entry is posted by one statement
of `ledger_post_entries` (ledger/sql/ledger_post_entries.sql)."""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("ledger", "0012_house_shard_function")]
    operations = [function_reload("ledger", "ledger_post_entries")]
