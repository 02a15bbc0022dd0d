-- Of these accounts, lock those no other transaction holds right now (in primary-key order, until the
-- end of the transaction) and answer their ids, without waiting for the others (settlement).
CREATE OR REPLACE FUNCTION ledger_lock_free_accounts(p_ids bigint[])
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
    v_locked bigint[];
BEGIN  -- the rows free now, locked until the end of the transaction in primary-key order
    SELECT array_agg(l.id) INTO v_locked
      FROM (SELECT id FROM ledger_account WHERE id = ANY (p_ids) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
    RETURN coalesce(v_locked, '{}');
END $$;
