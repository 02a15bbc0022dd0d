"""Posting with fewer statements, and the balance of each entry checked once per posting statement.

Every round posts two entries, so the posting function and its checks are the ledger's share of
a round's database CPU (docs/BENCHMARKS.md):

* `ledger_post_entry` hashes the request in the statement that reads the lines, locks the
  accounts in primary-key order in one statement and updates them all in one more (before: a
  function call for the hash, a query for the lines and one UPDATE per account).
* The per-posting deferred check (three trigger events at every commit, each running queries)
  becomes one statement-level trigger on ledger_posting, run when the statement that writes an
  entry's postings ends: every entry it touched must balance per currency, and every new posting
  must be in its account's currency. `ledger_post_entry` writes all the postings of an entry in
  one statement, so an entry is whole when it is checked; a posting added to an entry later is
  checked with the postings the entry had. An entry with fewer than two postings is still refused
  at commit (migration 0002's deferred trigger on the entry).
"""

import importlib

from django.db import migrations

POST = """
CREATE OR REPLACE FUNCTION ledger_post_entry(
    p_key text, p_kind text, p_reason text, p_actor_type text, p_actor_id text,
    p_reference_type text, p_reference_id text, p_reverses bigint,
    p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_id bigint, outcome text) LANGUAGE plpgsql AS $$
DECLARE
    v_hash text;
    v_accounts integer;
    v_entry bigint;
    v_existing text;
    v_ids bigint[];
    v_running bigint[];
    v_updated integer;
    v_after bigint[] := '{}';
    i integer;
    j integer;
BEGIN
    -- The request hash: the entry's content, its lines in a canonical order (ledger_request_hash's recipe).
    SELECT encode(sha256(convert_to(
               p_kind || E'\\n' || p_reference_type || E'\\n' || p_reference_id || E'\\n'
               || coalesce(p_reverses::text, '') || E'\\n'
               || string_agg(l.a::text || ':' || l.d::text, ',' ORDER BY l.a, l.d), 'UTF8')), 'hex'),
           count(DISTINCT l.a)
      INTO v_hash, v_accounts
      FROM unnest(p_accounts, p_amounts) AS l(a, d);

    INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,
                                     reference_type, reference_id, reverses_id, created_at)
    VALUES (p_key, v_hash, p_kind, p_reason, p_actor_type, p_actor_id, p_reference_type, p_reference_id,
            p_reverses, statement_timestamp())
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id INTO v_entry;
    IF v_entry IS NULL THEN
        SELECT e.id, e.request_hash INTO v_entry, v_existing FROM ledger_journalentry e WHERE e.idempotency_key = p_key;
        entry_id := v_entry;
        outcome := CASE WHEN v_existing = v_hash THEN 'replayed' ELSE 'conflict' END;
        RETURN NEXT;
        RETURN;
    END IF;

    -- Rows locked in primary-key order, as every writer locks them; then every balance in one
    -- statement (a player account never below zero), which answers each balance before the entry.
    PERFORM 1 FROM ledger_account WHERE id = ANY (p_accounts) ORDER BY id FOR NO KEY UPDATE;
    WITH deltas AS (
        SELECT l.a, sum(l.d)::bigint AS d FROM unnest(p_accounts, p_amounts) AS l(a, d) GROUP BY l.a
    ), updated AS (
        UPDATE ledger_account account SET balance = account.balance + deltas.d
          FROM deltas
         WHERE account.id = deltas.a
           AND (account.kind NOT IN ('player_wallet', 'player_in_play') OR account.balance + deltas.d >= 0)
        RETURNING account.id, account.balance - deltas.d AS before
    )
    SELECT array_agg(updated.id), array_agg(updated.before), count(*) INTO v_ids, v_running, v_updated FROM updated;
    IF v_updated < v_accounts THEN
        IF (SELECT count(*) FROM ledger_account WHERE id = ANY (p_accounts)) = v_accounts THEN
            RAISE EXCEPTION 'insufficient funds on a ledger account of entry %', p_key USING ERRCODE = 'LDG01';
        END IF;
        RAISE EXCEPTION 'a ledger account of entry % does not exist', p_key USING ERRCODE = 'LDG02';
    END IF;

    FOR i IN 1 .. array_length(p_accounts, 1) LOOP
        j := array_position(v_ids, p_accounts[i]);
        v_running[j] := v_running[j] + p_amounts[i];
        v_after := v_after || v_running[j];
    END LOOP;

    INSERT INTO ledger_posting (entry_id, account_id, direction, amount, currency, balance_after)
    SELECT v_entry, l.a, CASE WHEN l.d > 0 THEN 'C' ELSE 'D' END, abs(l.d), l.c, l.b
      FROM unnest(p_accounts, p_amounts, p_currencies, v_after) WITH ORDINALITY AS l(a, d, c, b, n)
     ORDER BY l.n;
    entry_id := v_entry;
    outcome := 'posted';
    RETURN NEXT;
END $$;
"""

CHECKS = """
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

DROP TRIGGER ledger_posting_entry_balanced ON ledger_posting;
CREATE TRIGGER ledger_postings_balance AFTER INSERT ON ledger_posting
REFERENCING NEW TABLE AS new_postings FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_new_postings();
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(POST)
        cursor.execute(CHECKS)


def backward(apps, schema_editor):
    previous = importlib.import_module("ledger.migrations.0005_posting_functions")
    guards = importlib.import_module("ledger.migrations.0002_database_guards")
    with schema_editor.connection.cursor() as cursor:
        # 0005's function again (its CREATE, without its DROP of 0003's)
        cursor.execute(previous.POST.split(";", 1)[1].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
        cursor.execute(
            "DROP TRIGGER ledger_postings_balance ON ledger_posting; DROP FUNCTION ledger_check_new_postings();"
        )
        posting_trigger = next(s for s in guards.POSTGRES_FORWARD if "ledger_posting_entry_balanced" in s)
        cursor.execute(posting_trigger)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_fewer_indexes_per_round")]
    operations = [migrations.RunPython(forward, backward)]
