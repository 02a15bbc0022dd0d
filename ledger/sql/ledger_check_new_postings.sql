-- The statement-level trigger on ledger_posting (AFTER INSERT, once per statement), in one query:
-- every new posting's account exists (locked FOR KEY SHARE until the end of the transaction, as a
-- foreign key's check locks it: ledger_keep_posted_accounts refuses to delete an account with
-- postings, and the lock keeps a concurrent delete from missing this one) and is in the posting's
-- currency; every entry the statement touched exists and balances per currency. The postings'
-- columns entry_id and account_id have no foreign key: this is their check, at once rather than
-- at commit (docs/BENCHMARKS.md, "Posting in fewer statements").
CREATE OR REPLACE FUNCTION ledger_check_new_postings() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_problem text;
    v_code text;
BEGIN
    -- Each account by its primary key and each entry by its index, through LATERAL: a join with
    -- the transition table, whose size the planner cannot know, could read every posting.
    SELECT c.problem, c.code INTO v_problem, v_code
      FROM (SELECT CASE WHEN a.id IS NULL THEN 'the account ' || n.account_id || ' of a posting of ledger entry '
                                               || n.entry_id || ' does not exist'
                        ELSE 'a ledger entry posts in a currency other than its account''s' END AS problem,
                   CASE WHEN a.id IS NULL THEN '23503' ELSE '23000' END AS code
              FROM new_postings n
              LEFT JOIN LATERAL (SELECT a.id, a.currency FROM ledger_account a WHERE a.id = n.account_id
                                    FOR KEY SHARE) AS a ON true
             WHERE a.currency IS DISTINCT FROM n.currency
            UNION ALL
            SELECT u.problem, u.code
              FROM (SELECT DISTINCT n.entry_id FROM new_postings n) AS e
             CROSS JOIN LATERAL (
                    SELECT 'ledger entry ' || e.entry_id || ' of a posting does not exist' AS problem, '23503' AS code
                     WHERE NOT EXISTS (SELECT FROM ledger_journalentry j WHERE j.id = e.entry_id)
                    UNION ALL
                    SELECT 'ledger entry ' || e.entry_id || ' does not balance in ' || p.currency || ': off by '
                           || sum(CASE WHEN p.direction = 'C' THEN p.amount ELSE -p.amount END), '23000'
                      FROM ledger_posting p
                     WHERE p.entry_id = e.entry_id
                     GROUP BY p.currency
                    HAVING sum(CASE WHEN p.direction = 'C' THEN p.amount ELSE -p.amount END) <> 0) AS u
           ) AS c
     LIMIT 1;
    IF v_problem IS NOT NULL THEN
        RAISE EXCEPTION '%', v_problem USING ERRCODE = v_code;
    END IF;
    RETURN NULL;
END $$;
