"""`casino_rounds_settle` reads every round's accounts in the statement that claims the batch.

Each round of a batch cost two statements of its own before its posting: its player's wallet and
money in play (`ledger_player_accounts`) and its house shard (`ledger_house_account`). Both are
now columns of the statement that claims the rounds: a statement inside a function costs mostly
its executor's start and end (docs/BENCHMARKS.md), so a batch of 25 runs 50 statements fewer.
Nothing else changes: the same advisory lock, claims, account locks, postings and answers as
migrations 0010 and 0011.
"""

import importlib

from django.db import migrations

_BEFORE = importlib.import_module("casino.migrations.0011_seamless_wallet")
SETTLER_LOCK_ID = importlib.import_module("casino.migrations.0010_settle_without_waiting").SETTLER_LOCK_ID

_CLAIM = """
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, get_byte(uuid_send(c.id), 15) % 32))
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_wallets, v_in_play, v_houses
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome, r.resolved_at
                  FROM casino_round r
                 WHERE {which}
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c
         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a;"""

FUNCTION = f"""
CREATE OR REPLACE FUNCTION casino_rounds_settle(p_ids uuid[], p_resolved_before timestamptz, p_limit integer)
RETURNS TABLE (settled_round uuid, webhook_partner bigint) LANGUAGE plpgsql AS $$
DECLARE
    v_ids uuid[];
    v_players bigint[];
    v_currencies text[];
    v_staked bigint[];
    v_payouts bigint[];
    v_outcomes text[];
    v_wallets bigint[];
    v_in_play bigint[];
    v_houses bigint[];
    v_locked bigint[];
    v_done uuid[] := '{{}}';
    v_done_players bigint[] := '{{}}';
    v_accounts bigint[];
    v_amounts bigint[];
    v_outcome text;
    v_left integer := 0;
    i integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock({SETTLER_LOCK_ID}) THEN
        RETURN;  -- another batch is settling: it, or the next one, takes these rounds
    END IF;
    IF p_ids IS NULL THEN{_CLAIM.format(which="r.status = 'resolved' AND NOT r.seamless AND r.resolved_at <= p_resolved_before")}
    ELSE{_CLAIM.format(which="r.status = 'resolved' AND NOT r.seamless AND r.id = ANY (p_ids)")}
    END IF;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

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
        cursor.execute(FUNCTION)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_BEFORE._settle_function(seamless_skipped=True))


class Migration(migrations.Migration):
    dependencies = [("casino", "0011_seamless_wallet"), ("ledger", "0009_partner_seamless_account")]
    operations = [migrations.RunPython(forward, backward)]
