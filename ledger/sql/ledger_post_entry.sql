-- One entry posted: ledger_post_entries with one entry (ledger.sql.post_entry).
CREATE OR REPLACE FUNCTION ledger_post_entry(
    p_key text, p_kind text, p_reason text, p_actor_type text, p_actor_id text,
    p_reference_type text, p_reference_id text, p_reverses bigint,
    p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_id bigint, outcome text) LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
        SELECT p.entry_id, p.outcome
          FROM ledger_post_entries(ARRAY[p_key], ARRAY[p_kind], ARRAY[p_reason], ARRAY[p_actor_type], ARRAY[p_actor_id],
                                   ARRAY[p_reference_type], ARRAY[p_reference_id], ARRAY[p_reverses],
                                   array_fill(1, ARRAY[cardinality(p_accounts)]), p_accounts, p_amounts,
                                   p_currencies) AS p;
END $$;
