"""Two indexes of the wallet calls that nothing reads, no longer written with every call (issue 34).

A seamless round writes its debit's row twice and its credit's three times (made, leased,
answered), each time into every index of the table (the status is in a partial index's condition,
so no update is HOT):

* the index of `partner_id` alone: `walletcall_partner_day` (partner, then day) finds a partner's
  calls, for the reconciliation and for the foreign key's checks alike;
* the index Django adds to a unique text column for LIKE: a transaction id is only ever looked up
  whole (the unique constraint's own index; the admin searches it with `=`).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_squashed_0012_player_age_and_terms_confirmed"),
        ("casino", "0021_seamless_round_counts_its_nonce_first"),
    ]

    operations = [
        migrations.AlterField(
            model_name="walletcall",
            name="partner",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="wallet_calls",
                to="accounts.partner",
            ),
        ),
        migrations.RunSQL(
            "DROP INDEX IF EXISTS casino_walletcall_transaction_id_cc94dd2b_like",
            "CREATE INDEX IF NOT EXISTS casino_walletcall_transaction_id_cc94dd2b_like"
            " ON casino_walletcall (transaction_id varchar_pattern_ops)",
        ),
    ]
