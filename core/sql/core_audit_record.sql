-- An audit event written from SQL, for another app's function that changes state in one statement
-- (casino_round_place, casino_rounds_decide); Python writes the same row with core.audit.audit_record.
CREATE OR REPLACE FUNCTION core_audit_record(
    p_actor_type text, p_actor_id text, p_action text, p_object_type text, p_object_id text, p_data jsonb
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN  -- PL/pgSQL, not SQL: its statement is planned once per connection, not on every call
    INSERT INTO core_auditevent (actor_type, actor_id, action, object_type, object_id, data, created_at)
    VALUES (p_actor_type, left(p_actor_id, 64), p_action, p_object_type, left(p_object_id, 64), p_data,
            statement_timestamp());
END $$;
