"""Check each entry once at commit, not once per posting.

The posting trigger now does the balance and currency check only for the last posting of its
entry (at commit every posting is there, so the last one sees the whole entry); the entry trigger
checks that the entry has at least two postings. Same guarantees, a third of the queries.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_check_posting_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        unbalanced record;
    BEGIN
        IF NEW.id <> (SELECT max(id) FROM ledger_posting WHERE entry_id = NEW.entry_id) THEN
            RETURN NULL;  -- the entry's last posting checks the whole entry
        END IF;
        SELECT currency, SUM(CASE WHEN direction = 'C' THEN amount ELSE -amount END) AS total
          INTO unbalanced
          FROM ledger_posting WHERE entry_id = NEW.entry_id
         GROUP BY currency
        HAVING SUM(CASE WHEN direction = 'C' THEN amount ELSE -amount END) <> 0
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'ledger entry % does not balance in %: off by %', NEW.entry_id, unbalanced.currency,
                unbalanced.total USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF EXISTS (
            SELECT 1 FROM ledger_posting p JOIN ledger_account a ON a.id = p.account_id
             WHERE p.entry_id = NEW.entry_id AND p.currency <> a.currency
        ) THEN
            RAISE EXCEPTION 'ledger entry % posts in a currency other than its account''s', NEW.entry_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
    """
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
    """,
]
BACKWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_check_posting_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM ledger_assert_entry(NEW.entry_id); RETURN NULL; END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_check_new_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM ledger_assert_entry(NEW.id); RETURN NULL; END $$;
    """,
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_post_entry_function")]
    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
