-- The deferred constraint trigger on ledger_journalentry: an entry needs at least two postings (at commit).
CREATE OR REPLACE FUNCTION ledger_check_new_entry() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    posting_count integer;
BEGIN
    SELECT count(*) INTO posting_count FROM ledger_posting WHERE entry_id = NEW.id;
    IF posting_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % posting(s); an entry needs at least two', NEW.id, posting_count
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END $$;
