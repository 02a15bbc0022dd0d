-- The triggers that keep what postings reference, which no foreign key keeps (ledger_posting's
-- entry_id and account_id are checked by ledger_check_new_postings when postings are written):
-- on ledger_account, AFTER DELETE (a row): an account with postings is never deleted, nor any in a
-- transaction above READ COMMITTED (whose snapshot could miss a posting committed meanwhile, which
-- a foreign key's check would see); AFTER UPDATE OF id: an account's id never changes; and, on
-- ledger_account and ledger_journalentry, AFTER TRUNCATE: only together with every posting (this
-- transaction holds ledger_posting's ACCESS EXCLUSIVE lock and it has no row). Entries are never
-- deleted or changed (ledger_refuse_change).
CREATE OR REPLACE FUNCTION ledger_keep_posted_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION 'DELETE of ledger account % is refused in % (only in read committed)', OLD.id,
                current_setting('transaction_isolation') USING ERRCODE = 'foreign_key_violation';
        ELSIF EXISTS (SELECT FROM ledger_posting p WHERE p.account_id = OLD.id) THEN
            RAISE EXCEPTION 'ledger account % has postings: DELETE is refused', OLD.id
                USING ERRCODE = 'foreign_key_violation';
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'the id of ledger account % may not change', OLD.id USING ERRCODE = 'foreign_key_violation';
    ELSIF NOT EXISTS (SELECT FROM pg_locks l
                       WHERE l.locktype = 'relation' AND l.relation = 'ledger_posting'::regclass
                         AND l.pid = pg_backend_pid() AND l.mode = 'AccessExclusiveLock' AND l.granted)
          OR EXISTS (SELECT FROM ledger_posting) THEN
        RAISE EXCEPTION 'TRUNCATE of % is refused: postings reference it (truncate ledger_posting with it)',
            TG_TABLE_NAME USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;
