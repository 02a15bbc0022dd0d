-- The claim of an Idempotency-Key, carried by the first statement of the request's work (core/sql/):
-- the signed request's nonce recorded (`nonce_taken` for one used already: then no lock, no read),
-- the key's advisory lock if no other request holds it (`free`), and the stored response, if any.
-- The lock lasts until the end of the transaction; with p_session, until core_idempotency_store
-- releases it (or the request's error path does: core/idempotency.py), for work whose statements
-- each commit alone: a lock found with a stored response is released at once (nothing to do).
CREATE OR REPLACE FUNCTION core_idempotency_claim(p_lock bigint, p_scope text, p_key text, p_nonce text,
                                                  p_session boolean DEFAULT false)
RETURNS TABLE (free boolean, request_hash text, response_status integer, response_text text,
               response_content_type text, response_headers jsonb, nonce_taken boolean) LANGUAGE plpgsql AS $$
BEGIN
    IF p_nonce IS NOT NULL THEN  -- the signed request's nonce, recorded with the request's work
        INSERT INTO core_requestnonce (key, created_at) VALUES (p_nonce, statement_timestamp())
        ON CONFLICT (key) DO NOTHING;
        nonce_taken := NOT FOUND;
        IF nonce_taken THEN  -- a replayed request: it takes no lock and reads nothing
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    -- the key's lock, if no other request holds it; the stored response
    free := CASE WHEN p_session THEN pg_try_advisory_lock(p_lock) ELSE pg_try_advisory_xact_lock(p_lock) END;
    SELECT r.request_hash, r.response_status, coalesce(r.response_text, r.response_body::text),
           r.response_content_type, coalesce(r.response_headers, '{}')
      INTO request_hash, response_status, response_text, response_content_type, response_headers
      FROM core_idempotencyrecord r
     WHERE r.scope = p_scope AND r.key = p_key;
    IF p_session AND free AND request_hash IS NOT NULL THEN
        PERFORM pg_advisory_unlock(p_lock);
    END IF;
    RETURN NEXT;
END $$;
