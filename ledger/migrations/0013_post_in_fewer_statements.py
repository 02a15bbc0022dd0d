"""Posting in fewer statements (issue #34, docs/BENCHMARKS.md): `ledger_post_entries`
(ledger/sql/ledger_post_entries.sql) posts one entry in three statements (the entry with its hash,
the accounts locked and moved, the postings) and checks it by plain expressions; several entries
lock and move their accounts in one statement too."""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("ledger", "0012_house_shard_function")]
    operations = [function_reload("ledger", "ledger_post_entries")]
