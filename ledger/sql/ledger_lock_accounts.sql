CREATE OR REPLACE FUNCTION ledger_lock_accounts(p_ids bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = ANY(p_ids) ORDER BY id FOR NO KEY UPDATE;
END $$;
