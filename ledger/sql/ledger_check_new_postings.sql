-- The statement-level trigger on ledger_posting (AFTER INSERT, once per statement): every entry the
-- statement touched balances per currency, and every new posting is in its account's currency.
CREATE OR REPLACE FUNCTION ledger_check_new_postings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_entry bigint;
    unbalanced record;
BEGIN
    -- Entry by entry (one, from ledger_post_entry), each read by its index: a join with the
    -- transition table, whose size the planner cannot know, could read every posting.
    FOR v_entry IN SELECT DISTINCT n.entry_id FROM new_postings n LOOP
        SELECT p.currency, sum(CASE WHEN p.direction = 'C' THEN p.amount ELSE -p.amount END) AS total
          INTO unbalanced
          FROM ledger_posting p
         WHERE p.entry_id = v_entry
         GROUP BY p.currency
        HAVING sum(CASE WHEN p.direction = 'C' THEN p.amount ELSE -p.amount END) <> 0
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'ledger entry % does not balance in %: off by %', v_entry, unbalanced.currency,
                unbalanced.total USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END LOOP;
    IF EXISTS (  -- each account by its primary key, for the same reason
        SELECT 1 FROM new_postings n
         WHERE n.currency IS DISTINCT FROM (SELECT a.currency FROM ledger_account a WHERE a.id = n.account_id)
    ) THEN
        RAISE EXCEPTION 'a ledger entry posts in a currency other than its account''s'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END $$;
