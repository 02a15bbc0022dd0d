CREATE OR REPLACE FUNCTION casino_wallet_debit_create(p_call jsonb)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
-- A pending debit of a seamless partner's wallet (casino/services/wallets.py `wallet_debit_create`)
-- and its audit event, in one statement. False, with nothing written, when a debit for the same
-- request (its scope and Idempotency-Key) exists already: a concurrent request with that key made it.
DECLARE
    v casino_walletcall := jsonb_populate_record(NULL::casino_walletcall, p_call);
BEGIN
    INSERT INTO casino_walletcall SELECT v.*
        ON CONFLICT (request_scope, request_key) WHERE NOT request_key::text = ''::text DO NOTHING;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM core_audit_record('system', 'seamless_wallet', 'wallet_call.created', 'wallet_call', v.transaction_id,
                              jsonb_build_object('kind', v.kind, 'purpose', v.purpose, 'amount', v.amount,
                                                 'round', v.round_id::text));
    RETURN true;
END $function$;
