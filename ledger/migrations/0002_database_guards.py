"""The database itself keeps the ledger honest, whatever code talks to it.

PostgreSQL: UPDATE and DELETE of entries, postings and seals are refused; a deferred constraint
trigger refuses, at commit, an entry whose postings do not balance per currency, an entry with
fewer than two postings, and a posting in another currency than its account.
SQLite (the embedded default): UPDATE and DELETE are refused; balance is checked by the service.
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
    CREATE OR REPLACE FUNCTION ledger_assert_entry(entry bigint) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
        unbalanced record;
        posting_count integer;
    BEGIN
        SELECT currency, SUM(CASE WHEN direction = 'C' THEN amount ELSE -amount END) AS total
          INTO unbalanced
          FROM ledger_posting WHERE entry_id = entry
         GROUP BY currency
        HAVING SUM(CASE WHEN direction = 'C' THEN amount ELSE -amount END) <> 0
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'ledger entry % does not balance in %: off by %', entry, unbalanced.currency, unbalanced.total
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        SELECT count(*) INTO posting_count FROM ledger_posting WHERE entry_id = entry;
        IF posting_count < 2 THEN
            RAISE EXCEPTION 'ledger entry % has % posting(s); an entry needs at least two', entry, posting_count
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF EXISTS (
            SELECT 1 FROM ledger_posting p JOIN ledger_account a ON a.id = p.account_id
             WHERE p.entry_id = entry AND p.currency <> a.currency
        ) THEN
            RAISE EXCEPTION 'ledger entry % posts in a currency other than its account''s', entry
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_check_posting_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM ledger_assert_entry(NEW.entry_id); RETURN NULL; END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_check_new_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM ledger_assert_entry(NEW.id); RETURN NULL; END $$;
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
    "DROP FUNCTION IF EXISTS ledger_assert_entry(bigint);",
    "DROP FUNCTION IF EXISTS ledger_refuse_change();",
]

SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table}
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: post a reversing entry instead'); END;
    """
    for table in APPEND_ONLY_TABLES
    for op in ("UPDATE", "DELETE")
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {table}_no_{op.lower()};" for table in APPEND_ONLY_TABLES for op in ("UPDATE", "DELETE")
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        # A raw cursor without parameters: PL/pgSQL's RAISE uses '%' placeholders of its own.
        with schema_editor.connection.cursor() as cursor:
            for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
                cursor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        )
    ]
