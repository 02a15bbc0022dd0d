-- Row locks on these accounts in primary-key order until the end of the transaction, as every
-- posting takes them: for a caller about to post several entries in one transaction.
CREATE OR REPLACE FUNCTION ledger_lock_accounts(p_ids bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = ANY(p_ids) ORDER BY id FOR NO KEY UPDATE;
END $$;
