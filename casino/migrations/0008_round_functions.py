"""The writes of a round's life, each one statement (casino/sql.py runs them; docs/BENCHMARKS.md
says why): the services decide everything in Python (the table's rules, the deal from the
engine, protection's verdict), then one call writes what they decided, atomically.

* `casino_round_place(round, audit, stake key, stake reason, wallet, in play, stake)`: counts the
  seed pair's nonce up (it must still be the round's), inserts the round (a row of `casino_round`
  as JSON), records `round.placed` and posts the stake from the wallet into money in play.
* `casino_round_decide(round, audit, raise key, wallet, in play)`: stakes the raise (to go to war)
  and writes the decision and the result on a round still awaiting it; records `round.decided`.
* `casino_rounds_settle(ids, resolved before, limit)`: claims resolved rounds (these ids, or the
  oldest resolved before a moment), skipping any another transaction holds, locks every account
  they touch in primary-key order, and for each posts its settlement (money in play out, the
  payout to the wallet, the rest to a house shard) and marks it settled. Answers each round it
  settled, with its partner's id when that partner takes webhooks.

Money moves only through `ledger_post_entry` (ledger migration 0005), audit events only through
`core_audit_record` (core migration 0003). SQLSTATE CSN01: the nonce was taken meanwhile;
CSN02: the round no longer awaits a decision; CSN03: a settlement key held other content.
"""

from django.db import migrations

FUNCTIONS = """
CREATE OR REPLACE FUNCTION casino_round_place(
    p_round jsonb, p_audit jsonb, p_stake_key text, p_stake_reason text,
    p_wallet bigint, p_in_play bigint, p_stake bigint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v casino_round := jsonb_populate_record(NULL::casino_round, p_round);
    v_outcome text;
BEGIN
    UPDATE casino_seedpair SET next_nonce = next_nonce + 1 WHERE id = v.seed_pair_id AND next_nonce = v.nonce;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'nonce % of seed pair % was taken', v.nonce, v.seed_pair_id USING ERRCODE = 'CSN01';
    END IF;
    INSERT INTO casino_round SELECT v.*;
    PERFORM core_audit_record(v.placed_by_type, v.placed_by_id, 'round.placed', 'round', v.id::text, p_audit);
    -- Last: the wallet row stays locked only from here to the commit.
    SELECT e.outcome INTO v_outcome
      FROM ledger_post_entry(p_stake_key, 'stake', p_stake_reason, v.placed_by_type, v.placed_by_id, 'round',
                             v.id::text, NULL, ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake],
                             ARRAY[v.currency, v.currency]) AS e;
    IF v_outcome <> 'posted' THEN
        RAISE EXCEPTION 'stake key % was used already', p_stake_key USING ERRCODE = 'CSN01';
    END IF;
END $$;

CREATE OR REPLACE FUNCTION casino_round_decide(
    p_round jsonb, p_audit jsonb, p_raise_key text, p_wallet bigint, p_in_play bigint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v casino_round := jsonb_populate_record(NULL::casino_round, p_round);
    v_outcome text;
BEGIN
    UPDATE casino_round
       SET status = v.status, outcome = v.outcome, nets = v.nets, net = v.net, payout = v.payout,
           raise_bet = v.raise_bet, resolved_at = v.resolved_at, decision = v.decision, burned = v.burned,
           war_player_card = v.war_player_card, war_dealer_card = v.war_dealer_card,
           decided_by_type = v.decided_by_type, decided_by_id = v.decided_by_id, decided_at = v.decided_at,
           decision_timed_out = v.decision_timed_out
     WHERE id = v.id AND status = 'awaiting_decision';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'round % does not await a decision', v.id USING ERRCODE = 'CSN02';
    END IF;
    PERFORM core_audit_record(v.decided_by_type, v.decided_by_id, 'round.decided', 'round', v.id::text, p_audit);
    IF p_raise_key IS NOT NULL THEN
        SELECT e.outcome INTO v_outcome
          FROM ledger_post_entry(p_raise_key, 'stake', 'raise to go to war', v.decided_by_type, v.decided_by_id,
                                 'round', v.id::text, NULL, ARRAY[p_wallet, p_in_play],
                                 ARRAY[-v.raise_bet, v.raise_bet], ARRAY[v.currency, v.currency]) AS e;
        IF v_outcome <> 'posted' THEN
            RAISE EXCEPTION 'raise key % was used already', p_raise_key USING ERRCODE = 'CSN02';
        END IF;
    END IF;
END $$;

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
    v_wallet bigint;
    v_play bigint;
    v_accounts bigint[];
    v_amounts bigint[];
    v_outcome text;
    i integer;
BEGIN
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
    -- Every account of the batch locked up front, in primary-key order, as every writer locks them.
    PERFORM ledger_lock_accounts(v_wallets || v_in_play || v_houses);

    FOR i IN 1 .. array_length(v_ids, 1) LOOP
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
    END LOOP;

    RETURN QUERY
        SELECT s.id, partner.id
          FROM unnest(v_ids, v_players) AS s(id, player_id)
          JOIN accounts_player p ON p.id = s.player_id
          LEFT JOIN accounts_partner partner ON partner.id = p.partner_id AND partner.webhook_url <> '';
END $$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTIONS)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "DROP FUNCTION casino_round_place(jsonb, jsonb, text, text, bigint, bigint, bigint);"
            " DROP FUNCTION casino_round_decide(jsonb, jsonb, text, bigint, bigint);"
            " DROP FUNCTION casino_rounds_settle(uuid[], timestamptz, integer);"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0007_webhook_undelivered_index"),
        ("core", "0003_audit_record_function"),
        ("ledger", "0005_posting_functions"),
        ("protection", "0002_stake_guards_function"),
        ("accounts", "0005_partner_webhook_url_public_addresses"),
    ]
    operations = [migrations.RunPython(forward, backward)]
