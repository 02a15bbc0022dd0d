"""Settlement never waits for a wallet, and only one batch runs at a time.

Measured under load (docs/BENCHMARKS.md): a batch locked the wallets of every player it paid and
waited for each wallet a round being placed held; placements then waited for the batch, and two
batches waited on each other's house shards. Now `casino_rounds_settle`

* runs alone: a transaction-level advisory lock it only tries to take (another batch settles the
  due rounds meanwhile, or the next one will);
* takes the account locks it can get at once (SKIP LOCKED, in primary-key order) and leaves a
  round whose wallet or money in play is busy right now to the next batch, which its caller runs
  straight away (`rounds_settle_due`);
* answers, besides each settled round, how many it left (`settled_round` NULL, `webhook_partner`
  the count).
"""

import importlib

from django.db import migrations

SETTLER_LOCK_ID = 7_461_002

FUNCTION = """
CREATE OR REPLACE FUNCTION casino_rounds_settle(p_ids uuid[], p_resolved_before timestamptz, p_limit integer)
RETURNS TABLE (settled_round uuid, webhook_partner bigint) LANGUAGE plpgsql AS $$
DECLARE
    v_ids uuid[];
    v_players bigint[];
    v_currencies text[];
    v_staked bigint[];
    v_payouts bigint[];
    v_outcomes text[];
    v_wallets bigint[] := '{}';
    v_in_play bigint[] := '{}';
    v_houses bigint[] := '{}';
    v_locked bigint[];
    v_done uuid[] := '{}';
    v_done_players bigint[] := '{}';
    v_wallet bigint;
    v_play bigint;
    v_accounts bigint[];
    v_amounts bigint[];
    v_outcome text;
    v_left integer := 0;
    i integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(SETTLER_LOCK) THEN
        RETURN;  -- another batch is settling: it, or the next one, takes these rounds
    END IF;
    IF p_ids IS NULL THEN
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome)
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND r.resolved_at <= p_resolved_before
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c;
    ELSE
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome)
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND r.id = ANY (p_ids)
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c;
    END IF;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    FOR i IN 1 .. array_length(v_ids, 1) LOOP
        SELECT a.wallet_id, a.in_play_id INTO v_wallet, v_play FROM ledger_player_accounts(v_players[i], v_currencies[i]) AS a;
        v_wallets := v_wallets || v_wallet;
        v_in_play := v_in_play || v_play;
        v_houses := v_houses || ledger_house_account(v_currencies[i], get_byte(uuid_send(v_ids[i]), 15) % 32);
    END LOOP;
    -- The accounts free right now, locked in primary-key order; none is waited for.
    v_locked := ledger_lock_free_accounts(v_wallets || v_in_play || v_houses);

    FOR i IN 1 .. array_length(v_ids, 1) LOOP
        IF NOT (v_wallets[i] = ANY (v_locked) AND v_in_play[i] = ANY (v_locked) AND v_houses[i] = ANY (v_locked)) THEN
            v_left := v_left + 1;  -- busy: a round of this player is being placed or decided
            CONTINUE;
        END IF;
        v_accounts := ARRAY[v_in_play[i]];
        v_amounts := ARRAY[-v_staked[i]];
        IF v_payouts[i] > 0 THEN
            v_accounts := v_accounts || v_wallets[i];
            v_amounts := v_amounts || v_payouts[i];
        END IF;
        IF v_staked[i] <> v_payouts[i] THEN
            v_accounts := v_accounts || v_houses[i];
            v_amounts := v_amounts || (v_staked[i] - v_payouts[i]);
        END IF;
        SELECT e.outcome INTO v_outcome
          FROM ledger_post_entry('round:' || v_ids[i] || ':settle', 'settlement',
                                 v_outcomes[i] || ': payout ' || v_payouts[i] || ' of ' || v_staked[i] || ' staked',
                                 'system', 'settlement', 'round', v_ids[i]::text, NULL, v_accounts, v_amounts,
                                 array_fill(v_currencies[i], ARRAY[array_length(v_accounts, 1)])) AS e;
        IF v_outcome = 'conflict' THEN
            RAISE EXCEPTION 'settlement of round % was posted with other content', v_ids[i] USING ERRCODE = 'CSN03';
        END IF;
        UPDATE casino_round SET status = 'settled', settled_at = statement_timestamp(),
                                settle_attempts = settle_attempts + 1
         WHERE id = v_ids[i];
        v_done := v_done || v_ids[i];
        v_done_players := v_done_players || v_players[i];
    END LOOP;

    RETURN QUERY
        SELECT s.id, partner.id
          FROM unnest(v_done, v_done_players) AS s(id, player_id)
          JOIN accounts_player p ON p.id = s.player_id
          LEFT JOIN accounts_partner partner ON partner.id = p.partner_id AND partner.webhook_url <> '';
    IF v_left > 0 THEN
        RETURN QUERY SELECT NULL::uuid, v_left::bigint;
    END IF;
END $$;
"""

def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTION.replace("SETTLER_LOCK", str(SETTLER_LOCK_ID)))


def backward(apps, schema_editor):
    previous = importlib.import_module("casino.migrations.0008_round_functions")
    with schema_editor.connection.cursor() as cursor:
        settle = previous.FUNCTIONS[previous.FUNCTIONS.index("CREATE OR REPLACE FUNCTION casino_rounds_settle"):]
        cursor.execute(settle)


class Migration(migrations.Migration):
    dependencies = [("casino", "0009_fewer_indexes_per_round"), ("ledger", "0008_lock_free_accounts")]
    operations = [migrations.RunPython(forward, backward)]
