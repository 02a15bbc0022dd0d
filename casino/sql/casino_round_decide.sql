-- One round's decision: casino_rounds_decide with one round.
CREATE OR REPLACE FUNCTION casino_round_decide(
    p_round jsonb, p_audit jsonb, p_raise_key text, p_wallet bigint, p_in_play bigint
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM casino_rounds_decide(jsonb_build_array(p_round), jsonb_build_array(p_audit), ARRAY[p_raise_key],
                                 ARRAY[p_wallet], ARRAY[p_in_play]);
END $$;
