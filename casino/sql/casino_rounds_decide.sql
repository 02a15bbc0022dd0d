-- The decisions of several rounds written by one statement (one round: casino_round_decide; a
-- batch of overdue ties: the house rule): every round (CSN02 when one no longer awaits a
-- decision), its `round.decided` audit event, and every raise to go to war posted by one call of
-- ledger_post_entries (CSN02 when a raise key was used already; LDG01 when a wallet cannot pay).
CREATE OR REPLACE FUNCTION casino_rounds_decide(
    p_rounds jsonb, p_audits jsonb, p_raise_keys text[], p_wallets bigint[], p_in_play bigint[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_count integer := jsonb_array_length(p_rounds);
    v_updated integer;
    v_raising integer[];  -- the rounds (their places in p_rounds) that go to war
    v_raises bigint[];
    v_currencies text[];
    v_keys text[];
    v_actor_types text[];
    v_actor_ids text[];
    v_references text[];
    v_line_entries integer[] := '{}';
    v_accounts bigint[] := '{}';
    v_amounts bigint[] := '{}';
    v_line_currencies text[] := '{}';
    v_refused text;
    i integer;
BEGIN
    UPDATE casino_round r
       SET status = v.status, outcome = v.outcome, nets = v.nets, net = v.net, payout = v.payout,
           raise_bet = v.raise_bet, resolved_at = v.resolved_at, decision = v.decision, burned = v.burned,
           war_player_card = v.war_player_card, war_dealer_card = v.war_dealer_card,
           decided_by_type = v.decided_by_type, decided_by_id = v.decided_by_id, decided_at = v.decided_at,
           decision_timed_out = v.decision_timed_out
      FROM jsonb_populate_recordset(NULL::casino_round, p_rounds) AS v
     WHERE r.id = v.id AND r.status = 'awaiting_decision';
    GET DIAGNOSTICS v_updated = ROW_COUNT;
    IF v_updated < v_count THEN
        RAISE EXCEPTION '% of % rounds no longer await a decision', v_count - v_updated, v_count
            USING ERRCODE = 'CSN02';
    END IF;

    PERFORM core_audit_record(v.decided_by_type, v.decided_by_id, 'round.decided', 'round', v.id::text, a.audit)
       FROM ROWS FROM (jsonb_populate_recordset(NULL::casino_round, p_rounds)) WITH ORDINALITY AS v
       JOIN jsonb_array_elements(p_audits) WITH ORDINALITY AS a(audit, n) ON a.n = v.ordinality
      ORDER BY v.ordinality;

    -- Last: the wallets stay locked only from here to the commit.
    SELECT array_agg(v.ordinality ORDER BY v.ordinality), array_agg(v.raise_bet ORDER BY v.ordinality),
           array_agg(v.currency ORDER BY v.ordinality), array_agg(p_raise_keys[v.ordinality] ORDER BY v.ordinality),
           array_agg(v.decided_by_type ORDER BY v.ordinality), array_agg(v.decided_by_id ORDER BY v.ordinality),
           array_agg(v.id::text ORDER BY v.ordinality)
      INTO v_raising, v_raises, v_currencies, v_keys, v_actor_types, v_actor_ids, v_references
      FROM ROWS FROM (jsonb_populate_recordset(NULL::casino_round, p_rounds)) WITH ORDINALITY AS v
     WHERE p_raise_keys[v.ordinality] IS NOT NULL;
    IF v_raising IS NULL THEN
        RETURN;
    END IF;
    FOR i IN 1 .. cardinality(v_raising) LOOP
        v_line_entries := v_line_entries || ARRAY[i, i];
        v_accounts := v_accounts || ARRAY[p_wallets[v_raising[i]], p_in_play[v_raising[i]]];
        v_amounts := v_amounts || ARRAY[-v_raises[i], v_raises[i]];
        v_line_currencies := v_line_currencies || ARRAY[v_currencies[i], v_currencies[i]];
    END LOOP;
    SELECT (array_agg(v_keys[p.entry_index]) FILTER (WHERE p.outcome <> 'posted'))[1] INTO v_refused
      FROM ledger_post_entries(v_keys, array_fill('stake'::text, ARRAY[cardinality(v_raising)]),
                               array_fill('raise to go to war'::text, ARRAY[cardinality(v_raising)]), v_actor_types,
                               v_actor_ids, array_fill('round'::text, ARRAY[cardinality(v_raising)]), v_references,
                               array_fill(NULL::bigint, ARRAY[cardinality(v_raising)]), v_line_entries, v_accounts,
                               v_amounts, v_line_currencies) AS p;
    IF v_refused IS NOT NULL THEN
        RAISE EXCEPTION 'raise key % was used already', v_refused USING ERRCODE = 'CSN02';
    END IF;
END $$;
