"""Seamless rounds at the transfer path's cost (issue 29 item 2, issue 34).

* `casino_rounds_settle` settles seamless rounds as it settles transfer rounds: the payout's
  credit to the partner's seamless account is posted in the same call of `ledger_post_entries`,
  and the credit's wallet call recorded by the same statement. It answers one more column (the
  credit), so the old one is dropped first.
* `casino_round_place` takes a seamless stake's funding (the debit the partner acknowledged, paid
  from its seamless account into the wallet) and posts it with the stake, by one call of
  `ledger_post_entries`. Three more parameters (with defaults): the old one is dropped first.

The bodies are casino/sql/<function>.sql, read when this migration runs. Backwards: the bodies
0013 left, as PostgreSQL showed them.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent.parent / "sql"
SETTLE = (SQL / "casino_rounds_settle.sql").read_text()
PLACE = (SQL / "casino_round_place.sql").read_text()
DROP_SETTLE = "DROP FUNCTION IF EXISTS casino_rounds_settle(uuid[], timestamp with time zone, integer);"
DROP_PLACE = "DROP FUNCTION IF EXISTS casino_round_place(jsonb, jsonb, text, text, bigint, bigint, bigint);"
DROP_PLACE_FUNDED = (
    "DROP FUNCTION IF EXISTS casino_round_place(jsonb, jsonb, text, text, bigint, bigint, bigint, text, text, bigint);"
)

PREVIOUS_SETTLE = r"""
CREATE OR REPLACE FUNCTION casino_rounds_settle(p_ids uuid[], p_resolved_before timestamp with time zone, p_limit integer)
 RETURNS TABLE(settled_round uuid, webhook_partner bigint)
 LANGUAGE plpgsql
AS $function$
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
    v_keys text[] := '{}';
    v_reasons text[] := '{}';
    v_references text[] := '{}';
    v_line_entries integer[] := '{}';
    v_accounts bigint[] := '{}';
    v_amounts bigint[] := '{}';
    v_line_currencies text[] := '{}';
    v_entry integer;
    v_conflict integer;
    v_left integer := 0;
    i integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7461002) THEN
        RETURN;  -- another batch is settling: it, or the next one, takes these rounds
    END IF;
    IF p_ids IS NULL THEN
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, get_byte(uuid_send(c.id), 15) % 32))
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_wallets, v_in_play, v_houses
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND NOT r.seamless AND r.resolved_at <= p_resolved_before
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c
         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a;
    ELSE
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, get_byte(uuid_send(c.id), 15) % 32))
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_wallets, v_in_play, v_houses
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND NOT r.seamless AND r.id = ANY (p_ids)
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c
         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a;
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
        v_done := v_done || v_ids[i];
        v_done_players := v_done_players || v_players[i];
        v_entry := cardinality(v_done);
        v_keys := v_keys || ('round:' || v_ids[i] || ':settle');
        v_reasons := v_reasons || (v_outcomes[i] || ': payout ' || v_payouts[i] || ' of ' || v_staked[i] || ' staked');
        v_references := v_references || v_ids[i]::text;
        -- The round's entry: its stake out of money in play, the payout to the wallet, the rest
        -- to or from the house.
        v_line_entries := v_line_entries || v_entry;
        v_accounts := v_accounts || v_in_play[i];
        v_amounts := v_amounts || -v_staked[i];
        IF v_payouts[i] > 0 THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_wallets[i];
            v_amounts := v_amounts || v_payouts[i];
        END IF;
        IF v_staked[i] <> v_payouts[i] THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_houses[i];
            v_amounts := v_amounts || (v_staked[i] - v_payouts[i]);
        END IF;
        v_line_currencies := v_line_currencies || array_fill(v_currencies[i], ARRAY[cardinality(v_accounts) - cardinality(v_line_currencies)]);
    END LOOP;

    v_entry := cardinality(v_done);
    IF v_entry > 0 THEN  -- every round its own entry, all posted by one call
        SELECT (array_agg(p.entry_index) FILTER (WHERE p.outcome = 'conflict'))[1] INTO v_conflict
          FROM ledger_post_entries(v_keys, array_fill('settlement'::text, ARRAY[v_entry]), v_reasons,
                                   array_fill('system'::text, ARRAY[v_entry]),
                                   array_fill('settlement'::text, ARRAY[v_entry]),
                                   array_fill('round'::text, ARRAY[v_entry]), v_references,
                                   array_fill(NULL::bigint, ARRAY[v_entry]), v_line_entries, v_accounts, v_amounts,
                                   v_line_currencies) AS p;
        IF v_conflict IS NOT NULL THEN
            RAISE EXCEPTION 'settlement of round % was posted with other content', v_done[v_conflict]
                USING ERRCODE = 'CSN03';
        END IF;
        UPDATE casino_round r SET status = 'settled', settled_at = statement_timestamp(),
                                  settle_attempts = r.settle_attempts + 1
          FROM unnest(v_done) AS d(id)
         WHERE r.id = d.id;
    END IF;

    RETURN QUERY
        SELECT s.id, partner.id
          FROM unnest(v_done, v_done_players) AS s(id, player_id)
          JOIN accounts_player p ON p.id = s.player_id
          LEFT JOIN accounts_partner partner ON partner.id = p.partner_id AND partner.webhook_url <> '';
    IF v_left > 0 THEN
        RETURN QUERY SELECT NULL::uuid, v_left::bigint;
    END IF;
END $function$;
"""

PREVIOUS_PLACE = r"""
CREATE OR REPLACE FUNCTION casino_round_place(p_round jsonb, p_audit jsonb, p_stake_key text, p_stake_reason text, p_wallet bigint, p_in_play bigint, p_stake bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
      FROM ledger_post_entries(ARRAY[p_stake_key], '{stake}', ARRAY[p_stake_reason], ARRAY[v.placed_by_type],
                               ARRAY[v.placed_by_id], '{round}', ARRAY[v.id::text], '{NULL}', '{1,1}',
                               ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake], ARRAY[v.currency, v.currency]) AS e;
    IF v_outcome <> 'posted' THEN
        RAISE EXCEPTION 'stake key % was used already', p_stake_key USING ERRCODE = 'CSN01';
    END IF;
END $function$;
"""


class Migration(migrations.Migration):
    dependencies = [("casino", "0015_table_changes_four_eyes")]
    operations = [
        migrations.RunSQL([DROP_SETTLE, SETTLE], reverse_sql=[DROP_SETTLE, PREVIOUS_SETTLE]),
        migrations.RunSQL([DROP_PLACE, PLACE], reverse_sql=[DROP_PLACE_FUNDED, PREVIOUS_PLACE]),
    ]
