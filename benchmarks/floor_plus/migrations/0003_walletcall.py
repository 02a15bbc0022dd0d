"""The `seamless` step: wallet calls, and the bet's and settlement's functions that acknowledge the
debit and record the credit in their own transactions."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FUNCTIONS = """
CREATE FUNCTION floor_plus_seamless_bet(p_debit bigint, p_user bigint, p_stake bigint, p_payout bigint, p_key text,
                                        p_hash text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_bet bigint;
BEGIN
    UPDATE floor_plus_walletcall SET status = 'acknowledged', answered_at = now()
     WHERE id = p_debit AND status = 'pending';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'debit % is no longer pending', p_debit USING ERRCODE = 'P0002';
    END IF;
    v_bet := floor_plus_bet(p_user, p_stake, p_payout, p_key, p_hash);
    UPDATE floor_plus_walletcall SET bet_id = v_bet WHERE id = p_debit;
    RETURN v_bet;
END $$;

CREATE FUNCTION floor_plus_seamless_settle(p_bet bigint, p_user bigint, p_transaction_id text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_call bigint;
BEGIN
    PERFORM floor_plus_settle(p_bet);
    INSERT INTO floor_plus_walletcall (transaction_id, kind, user_id, bet_id, amount, status, created_at)
    SELECT p_transaction_id, 'credit', p_user, p_bet, b.payout, 'pending', now() FROM floor_plus_bet b WHERE b.id = p_bet
    RETURNING id INTO v_call;
    RETURN v_call;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("floor_plus", "0002_sql_functions"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]
    operations = [
        migrations.CreateModel(
            name="WalletCall",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("transaction_id", models.CharField(max_length=64, unique=True)),
                ("kind", models.CharField(max_length=8)),
                ("amount", models.BigIntegerField()),
                ("status", models.CharField(default="pending", max_length=16)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("answered_at", models.DateTimeField(null=True)),
                (
                    "bet",
                    models.ForeignKey(
                        null=True, on_delete=django.db.models.deletion.PROTECT, to="floor_plus.bet"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, to=settings.AUTH_USER_MODEL),
                ),
            ],
        ),
        migrations.RunSQL(
            FUNCTIONS, "DROP FUNCTION floor_plus_seamless_bet; DROP FUNCTION floor_plus_seamless_settle;"
        ),
    ]
