-- The response stored under its Idempotency-Key, carried by the last statement of the request's
-- work; false: a response was stored for this key already.
CREATE OR REPLACE FUNCTION core_idempotency_store(
    p_scope text, p_key text, p_hash text, p_status integer, p_text text, p_content_type text, p_headers jsonb
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN  -- false: a response was stored for this key already
    INSERT INTO core_idempotencyrecord (scope, key, request_hash, response_status, response_text,
                                        response_content_type, response_headers, created_at)
    VALUES (p_scope, p_key, p_hash, p_status, p_text, p_content_type, p_headers, statement_timestamp())
    ON CONFLICT (scope, key) DO NOTHING;
    RETURN FOUND;
END $$;
