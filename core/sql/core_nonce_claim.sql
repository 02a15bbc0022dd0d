-- A signed request's nonce recorded in a statement of its own (core/nonces.py); false: used already.
CREATE OR REPLACE FUNCTION core_nonce_claim(p_nonce text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN  -- false: the nonce was used already
    -- Its transaction (the statement's own, at authentication) commits without waiting for the
    -- WAL flush, which cost a read more than the read itself (docs/BENCHMARKS.md). Any later
    -- commit of the request's work flushes the WAL past this record, so a nonce is lost (to a
    -- crash of PostgreSQL in the next fraction of a second) only with a request that changed nothing.
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO core_requestnonce (key, created_at) VALUES (p_nonce, statement_timestamp())
    ON CONFLICT (key) DO NOTHING;
    RETURN FOUND;
END $$;
