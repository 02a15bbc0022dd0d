"""The `sql` step: each of the bet's two transactions as one database function (the round trips
and the ORM's Python gone), the lower bound of the guarantees on this stack."""

from django.db import migrations

FUNCTIONS = """
CREATE FUNCTION floor_plus_bet(p_user bigint, p_stake bigint, p_payout bigint, p_key text, p_hash text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_wallet bigint; v_in_play bigint; v_balance bigint; v_wallet_row bigint; v_bet bigint; v_entry bigint;
BEGIN
    SELECT id, balance INTO v_wallet, v_balance FROM floor_plus_account
     WHERE user_id = p_user AND kind = 'wallet' FOR UPDATE;
    SELECT id INTO v_in_play FROM floor_plus_account WHERE user_id = p_user AND kind = 'in_play' FOR UPDATE;
    IF v_balance < p_stake THEN
        RAISE EXCEPTION 'insufficient funds' USING ERRCODE = 'P0001';
    END IF;
    SELECT id INTO v_wallet_row FROM floor_plus_wallet WHERE user_id = p_user;
    INSERT INTO floor_plus_bet (wallet_id, stake, payout, settled, created_at)
    VALUES (v_wallet_row, p_stake, p_payout, false, now()) RETURNING id INTO v_bet;
    INSERT INTO floor_plus_entry (key, created_at) VALUES ('bet:' || v_bet || ':stake', now()) RETURNING id INTO v_entry;
    INSERT INTO floor_plus_posting (entry_id, account_id, amount)
    VALUES (v_entry, v_wallet, -p_stake), (v_entry, v_in_play, p_stake);
    UPDATE floor_plus_account SET balance = balance + CASE WHEN id = v_wallet THEN -p_stake ELSE p_stake END
     WHERE id IN (v_wallet, v_in_play);
    INSERT INTO floor_plus_auditevent (actor, action, target, data, at)
    VALUES ('user:' || p_user, 'bet.place', v_bet::text, jsonb_build_object('stake', p_stake, 'payout', p_payout), now());
    INSERT INTO floor_plus_idempotencyrecord (user_id, key, request_hash, response)
    VALUES (p_user, p_key, p_hash, jsonb_build_object('id', v_bet, 'stake', p_stake, 'payout', p_payout,
                                                      'balance', v_balance - p_stake));
    RETURN v_bet;
END $$;

CREATE FUNCTION floor_plus_settle(p_bet bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_user bigint; v_stake bigint; v_payout bigint; v_entry bigint;
BEGIN
    UPDATE floor_plus_bet b SET settled = true FROM floor_plus_wallet w
     WHERE b.id = p_bet AND NOT b.settled AND w.id = b.wallet_id
    RETURNING w.user_id, b.stake, b.payout INTO v_user, v_stake, v_payout;
    IF NOT FOUND THEN RETURN; END IF;
    PERFORM 1 FROM floor_plus_account WHERE user_id = v_user ORDER BY id FOR UPDATE;
    INSERT INTO floor_plus_entry (key, created_at) VALUES ('bet:' || p_bet || ':settle', now()) RETURNING id INTO v_entry;
    INSERT INTO floor_plus_posting (entry_id, account_id, amount)
    SELECT v_entry, a.id, CASE a.kind WHEN 'in_play' THEN -v_stake WHEN 'house' THEN v_stake - v_payout
                                      ELSE v_payout END
      FROM floor_plus_account a WHERE a.user_id = v_user AND (a.kind <> 'wallet' OR v_payout <> 0);
    UPDATE floor_plus_account a SET balance = a.balance + CASE a.kind WHEN 'in_play' THEN -v_stake
                                                   WHEN 'house' THEN v_stake - v_payout ELSE v_payout END
     WHERE a.user_id = v_user;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("floor_plus", "0001_initial")]
    operations = [migrations.RunSQL(FUNCTIONS, "DROP FUNCTION floor_plus_bet; DROP FUNCTION floor_plus_settle;")]
