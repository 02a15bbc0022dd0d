CREATE OR REPLACE FUNCTION casino_credits_record(p_ids uuid[], p_status_codes integer[], p_errors text[], p_answers text[], p_durations integer[], p_balances bigint[], p_acknowledged boolean[], p_next_attempts timestamp with time zone[])
 RETURNS TABLE(call_id uuid, recorded boolean, call_status text, settled_round uuid, webhook_partner bigint)
 LANGUAGE plpgsql
AS $function$
-- Records the answers of a batch of credits (or of a rollback) in one statement
-- (casino/services/wallets.py, which checked each answer: p_acknowledged, and p_balances NULL for
-- an answer not believed). The calls still pending are locked in key order (a call answered
-- meanwhile by another sender is left as it is); each gets its attempt, the fields of the call
-- that the answer changes (wallets.py RECORDED_FIELDS; p_next_attempts for one not acknowledged)
-- and, acknowledged, its audit event. The rounds of the acknowledged credits that are still
-- resolved are then locked in key order (after their calls, as every recorder locks them) and
-- settled, each with its audit event. Returns a row per call given: whether this statement
-- recorded it, its status now, and the round it settled with that round's partner when it takes
-- webhooks (they are written by Python, webhook_create_for_round, in the same transaction).
DECLARE
    v_held uuid[];
    v_rounds uuid[];
    v_credits text[];
    v_settled uuid[];
    v_payouts bigint[];
BEGIN
    SELECT coalesce(array_agg(c.id ORDER BY c.id), '{}') INTO v_held
      FROM (SELECT w.id FROM casino_walletcall w WHERE w.id = ANY (p_ids) AND w.status = 'pending'
             ORDER BY w.id FOR UPDATE) AS c;

    WITH answers AS (
        SELECT a.*
          FROM unnest(p_ids, p_status_codes, p_errors, p_answers, p_durations, p_balances, p_acknowledged,
                      p_next_attempts)
               AS a(id, status_code, error, answer, duration_ms, balance, acknowledged, next_attempt_at)
         WHERE a.id = ANY (v_held)
    ), attempts AS (
        INSERT INTO casino_walletcallattempt (call_id, attempted_at, status_code, error, answer, duration_ms)
        SELECT a.id, statement_timestamp(), a.status_code, a.error, a.answer, a.duration_ms FROM answers a
    ), calls AS (
        UPDATE casino_walletcall w
           SET attempts = w.attempts + 1, last_status_code = a.status_code, last_error = a.error,
               last_answer = a.answer, latency_ms = a.duration_ms,
               partner_balance = coalesce(a.balance, w.partner_balance),
               status = CASE WHEN a.acknowledged THEN 'acknowledged' ELSE w.status END,
               answered_at = CASE WHEN a.acknowledged THEN statement_timestamp() ELSE w.answered_at END,
               next_attempt_at = CASE WHEN a.acknowledged THEN w.next_attempt_at ELSE a.next_attempt_at END
          FROM answers a
         WHERE w.id = a.id
        RETURNING w.id, w.kind, w.transaction_id, w.amount, w.round_id, a.status_code, a.acknowledged
    ), audited AS (
        INSERT INTO core_auditevent (actor_type, actor_id, action, object_type, object_id, data, created_at)
        SELECT 'system', 'seamless_wallet', 'wallet_call.acknowledged', 'wallet_call', left(c.transaction_id, 64),
               jsonb_build_object('kind', c.kind, 'amount', c.amount, 'status_code', c.status_code),
               statement_timestamp()
          FROM (SELECT * FROM calls ORDER BY id) AS c
         WHERE c.acknowledged
    )
    SELECT array_agg(c.round_id), array_agg(c.transaction_id) INTO v_rounds, v_credits
      FROM calls c
     WHERE c.acknowledged AND c.kind = 'credit';

    IF v_rounds IS NOT NULL THEN
        SELECT array_agg(r.id ORDER BY r.id), array_agg(r.payout ORDER BY r.id) INTO v_settled, v_payouts
          FROM (SELECT r.id, r.payout FROM casino_round r WHERE r.id = ANY (v_rounds) AND r.status = 'resolved'
                 ORDER BY r.id FOR UPDATE) AS r;
    END IF;
    IF v_settled IS NOT NULL THEN
        UPDATE casino_round SET status = 'settled', settled_at = statement_timestamp() WHERE id = ANY (v_settled);
        INSERT INTO core_auditevent (actor_type, actor_id, action, object_type, object_id, data, created_at)
        SELECT 'system', 'settlement', 'round.settled', 'round', s.id::text,
               jsonb_build_object('payout', s.payout, 'credit', v_credits[array_position(v_rounds, s.id)]),
               statement_timestamp()
          FROM unnest(v_settled, v_payouts) AS s(id, payout);
    END IF;

    RETURN QUERY
        SELECT i.id, i.id = ANY (v_held), w.status::text, r.id,
               CASE WHEN r.id IS NOT NULL THEN partner.id::bigint END
          FROM (SELECT DISTINCT unnest(p_ids) AS id) AS i
          LEFT JOIN casino_walletcall w ON w.id = i.id
          LEFT JOIN casino_round r ON r.id = w.round_id AND w.kind = 'credit' AND r.id = ANY (v_settled)
          LEFT JOIN accounts_player p ON p.id = r.player_id
          LEFT JOIN accounts_partner partner ON partner.id = p.partner_id AND partner.webhook_url <> '';
END $function$;
