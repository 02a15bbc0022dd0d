CREATE OR REPLACE FUNCTION casino_round_place(p_round jsonb, p_audit jsonb, p_stake_key text, p_stake_reason text, p_wallet bigint, p_in_play bigint, p_stake bigint, p_funding_key text DEFAULT NULL, p_funding_reason text DEFAULT NULL, p_funding_account bigint DEFAULT NULL, p_debit uuid DEFAULT NULL, p_debit_answer jsonb DEFAULT NULL)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
-- Writes a dealt round: its nonce counted, the round, its audit event and its stake posted from
-- the wallet into money in play. With p_funding_key (a seamless round), the stake is first paid
-- into the wallet from the partner's seamless account p_funding_account (the debit the partner
-- acknowledged): both entries posted by one call of ledger_post_entries, their accounts locked
-- together in primary-key order. With p_debit (that debit's wallet call, answered 200 with
-- p_debit_answer: its status_code, error, answer, duration_ms and balance), the debit is
-- acknowledged: its row locked (after the seed pair's, as every round locks them), its attempt and
-- audit event written; a debit no longer pending (the sweeper gave it up) refuses the round with
-- CSN04 (CSN05: it was refused for funds), having written nothing.
DECLARE
    v casino_round := jsonb_populate_record(NULL::casino_round, p_round);
    v_refused text;
    v_debit casino_walletcall;
BEGIN
    -- First (the lock order of every round: the seed pair, then the debit's row, then the accounts),
    -- the nonce the round was dealt for, counted if it is still the pair's next and the pair still
    -- active: a round read its pair without locking it (each statement committing alone) finds here
    -- whether another round or a new pair came first, and then writes nothing (CSN01).
    UPDATE casino_seedpair SET next_nonce = next_nonce + 1
     WHERE id = v.seed_pair_id AND next_nonce = v.nonce AND active;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'nonce % of seed pair % was taken', v.nonce, v.seed_pair_id USING ERRCODE = 'CSN01';
    END IF;
    IF p_debit IS NOT NULL THEN
        SELECT * INTO v_debit FROM casino_walletcall WHERE id = p_debit FOR UPDATE;
        IF v_debit.status IS DISTINCT FROM 'pending' THEN
            RAISE EXCEPTION 'debit % is %', p_debit, coalesce(v_debit.status, 'missing')
                USING ERRCODE = CASE WHEN v_debit.status = 'refused' THEN 'CSN05' ELSE 'CSN04' END;
        END IF;
        INSERT INTO casino_walletcallattempt (call_id, attempted_at, status_code, error, answer, duration_ms)
        VALUES (p_debit, statement_timestamp(), (p_debit_answer->>'status_code')::smallint, p_debit_answer->>'error',
                p_debit_answer->>'answer', (p_debit_answer->>'duration_ms')::integer);
        UPDATE casino_walletcall
           SET status = 'acknowledged', attempts = attempts + 1,
               last_status_code = (p_debit_answer->>'status_code')::smallint, last_error = p_debit_answer->>'error',
               last_answer = p_debit_answer->>'answer', latency_ms = (p_debit_answer->>'duration_ms')::integer,
               partner_balance = (p_debit_answer->>'balance')::bigint, answered_at = statement_timestamp()
         WHERE id = p_debit;
        PERFORM core_audit_record('system', 'seamless_wallet', 'wallet_call.acknowledged', 'wallet_call',
                                  v_debit.transaction_id,
                                  jsonb_build_object('kind', v_debit.kind, 'amount', v_debit.amount,
                                                     'status_code', (p_debit_answer->>'status_code')::integer));
    END IF;
    INSERT INTO casino_round SELECT v.*;
    PERFORM core_audit_record(v.placed_by_type, v.placed_by_id, 'round.placed', 'round', v.id::text, p_audit);
    -- Last: the wallet row stays locked only from here to the commit.
    IF p_funding_key IS NULL THEN
        SELECT (array_agg(e.entry_index) FILTER (WHERE e.outcome <> 'posted'))[1]::text INTO v_refused
          FROM ledger_post_entries(ARRAY[p_stake_key], '{stake}', ARRAY[p_stake_reason], ARRAY[v.placed_by_type],
                                   ARRAY[v.placed_by_id], '{round}', ARRAY[v.id::text], '{NULL}', '{1,1}',
                                   ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake],
                                   ARRAY[v.currency, v.currency]) AS e;
    ELSE
        SELECT (array_agg(e.entry_index) FILTER (WHERE e.outcome <> 'posted'))[1]::text INTO v_refused
          FROM ledger_post_entries(ARRAY[p_funding_key, p_stake_key], '{seamless_debit,stake}',
                                   ARRAY[p_funding_reason, p_stake_reason], ARRAY[v.placed_by_type, v.placed_by_type],
                                   ARRAY[v.placed_by_id, v.placed_by_id], '{round,round}',
                                   ARRAY[v.id::text, v.id::text], '{NULL,NULL}', '{1,1,2,2}',
                                   ARRAY[p_funding_account, p_wallet, p_wallet, p_in_play],
                                   ARRAY[-p_stake, p_stake, -p_stake, p_stake],
                                   ARRAY[v.currency, v.currency, v.currency, v.currency]) AS e;
    END IF;
    IF v_refused IS NOT NULL THEN
        RAISE EXCEPTION 'stake key % was used already', p_stake_key USING ERRCODE = 'CSN01';
    END IF;
END $function$;
