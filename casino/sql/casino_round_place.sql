-- Placing a round, in one statement (casino.services.rounds.round_place decided everything):
-- counts the seed pair's nonce up (it must still be the round's: else CSN01), inserts the round
-- (a row of casino_round as JSON), records `round.placed` and, last (the wallet row stays locked
-- only from here to the commit), posts the stake from the wallet into money in play.
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
      FROM ledger_post_entries(ARRAY[p_stake_key], '{stake}', ARRAY[p_stake_reason], ARRAY[v.placed_by_type],
                               ARRAY[v.placed_by_id], '{round}', ARRAY[v.id::text], '{NULL}', '{1,1}',
                               ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake], ARRAY[v.currency, v.currency]) AS e;
    IF v_outcome <> 'posted' THEN
        RAISE EXCEPTION 'stake key % was used already', p_stake_key USING ERRCODE = 'CSN01';
    END IF;
END $$;
