"""The database itself keeps the ledger honest, whatever code talks to it.

UPDATE and DELETE of entries, postings and seals are refused; deferred constraint triggers refuse,
at commit, an entry whose postings do not balance per currency or post in another currency than
their account (checked once per entry, by its last posting, when the whole entry is there) and an
entry with fewer than two postings.
"""

from django.db import migrations

APPEND_ONLY_TABLES = ("ledger_journalentry", "ledger_posting", "ledger_entryseal")

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the ledger is append-only: % on % is refused (post a reversing entry instead)',
            TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END $$;
    """,
    *[
        f"""
        CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
        """
        for table in APPEND_ONLY_TABLES
    ],
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
    """
    CREATE CONSTRAINT TRIGGER ledger_posting_entry_balanced AFTER INSERT ON ledger_posting
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_posting_entry();
    """,
    """
    CREATE CONSTRAINT TRIGGER ledger_journalentry_has_postings AFTER INSERT ON ledger_journalentry
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_new_entry();
    """,
]

POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS ledger_journalentry_has_postings ON ledger_journalentry;",
    "DROP TRIGGER IF EXISTS ledger_posting_entry_balanced ON ledger_posting;",
    *[f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};" for table in APPEND_ONLY_TABLES],
    "DROP FUNCTION IF EXISTS ledger_check_posting_entry();",
    "DROP FUNCTION IF EXISTS ledger_check_new_entry();",
    "DROP FUNCTION IF EXISTS ledger_refuse_change();",
]


def _run(statements):
    def run(apps, schema_editor):
        # A raw cursor without parameters: PL/pgSQL's RAISE uses '%' placeholders of its own.
        with schema_editor.connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD))]
