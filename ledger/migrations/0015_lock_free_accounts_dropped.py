"""`ledger_lock_free_accounts` goes: settlement, its only caller, now locks the accounts it pays by
posting them (`ledger_post_entries`), last, instead of locking those free beforehand."""

from django.db import migrations

from core.sql_functions import function_drop


class Migration(migrations.Migration):
    dependencies = [("ledger", "0014_posting_references_checked_by_triggers")]
    operations = [function_drop("ledger_lock_free_accounts", "bigint[]")]
