-- The response stored under its Idempotency-Key, carried by the last statement of the request's
-- work; false: a response was stored for this key already. With p_release (the key's lock, taken by
-- core_idempotency_claim with p_session), a response stored already raises IDS01 instead, so that
-- the statement carrying the store writes nothing, and the lock is released once the response is in.
-- With p_first_only, a response stored already raises IDS01 too, with no lock to release: work whose
-- claim an earlier statement of the request made and committed (a seamless stake's first).
CREATE OR REPLACE FUNCTION core_idempotency_store(
    p_scope text, p_key text, p_hash text, p_status integer, p_text text, p_content_type text, p_headers jsonb,
    p_release bigint DEFAULT NULL, p_first_only boolean DEFAULT false
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_stored boolean;
BEGIN
    INSERT INTO core_idempotencyrecord (scope, key, request_hash, response_status, response_text,
                                        response_content_type, response_headers, created_at)
    VALUES (p_scope, p_key, p_hash, p_status, p_text, p_content_type, p_headers, statement_timestamp())
    ON CONFLICT (scope, key) DO NOTHING;
    v_stored := FOUND;
    IF (p_release IS NOT NULL OR p_first_only) AND NOT v_stored THEN
        RAISE EXCEPTION 'a response to key % of % was stored already', p_key, p_scope USING ERRCODE = 'IDS01';
    END IF;
    IF p_release IS NOT NULL THEN
        PERFORM pg_advisory_unlock(p_release);
    END IF;
    RETURN v_stored;
END $$;
