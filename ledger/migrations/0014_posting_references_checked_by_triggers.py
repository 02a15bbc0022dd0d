"""The postings' references without foreign keys (issue #34, docs/BENCHMARKS.md "Posting in fewer
statements"): their checks at commit cost two queries per posting. `ledger_check_new_postings`
(reloaded) checks that each new posting's account (locked FOR KEY SHARE) and entry exist, as it
already checked their currency and balance; `ledger_keep_posted_accounts` refuses to delete an
account with postings, to change an account's id, and to truncate accounts or entries without the
postings. Entries were append-only already."""

import django.db.models.deletion
from django.db import migrations, models

from core.sql_functions import function_create, function_reload

TRIGGERS = [
    "CREATE TRIGGER ledger_account_keeps_postings AFTER DELETE ON ledger_account"
    " FOR EACH ROW EXECUTE FUNCTION ledger_keep_posted_accounts()",
    "CREATE TRIGGER ledger_account_keeps_its_id AFTER UPDATE OF id ON ledger_account"
    " FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION ledger_keep_posted_accounts()",
    *[
        f"CREATE TRIGGER {table}_truncated_with_postings AFTER TRUNCATE ON {table}"
        " FOR EACH STATEMENT EXECUTE FUNCTION ledger_keep_posted_accounts()"
        for table in ("ledger_account", "ledger_journalentry")
    ],
]
TRIGGERS_DROPPED = [
    "DROP TRIGGER ledger_journalentry_truncated_with_postings ON ledger_journalentry",
    "DROP TRIGGER ledger_account_truncated_with_postings ON ledger_account",
    "DROP TRIGGER ledger_account_keeps_its_id ON ledger_account",
    "DROP TRIGGER ledger_account_keeps_postings ON ledger_account",
]


class Migration(migrations.Migration):
    dependencies = [("ledger", "0013_post_in_fewer_statements")]
    operations = [
        function_reload("ledger", "ledger_check_new_postings"),
        function_create("ledger", "ledger_keep_posted_accounts"),
        migrations.RunSQL(TRIGGERS, TRIGGERS_DROPPED),
        migrations.AlterField(
            model_name="posting",
            name="entry",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="postings",
                to="ledger.journalentry",
            ),
        ),
        migrations.AlterField(
            model_name="posting",
            name="account",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="postings",
                to="ledger.account",
            ),
        ),
    ]
