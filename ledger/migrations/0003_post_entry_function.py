"""`ledger_post_entry`: the whole posting of an entry in one round trip (`ledger.sql.post_entry`,
called by `ledger.services.ledger_post`, the only way money moves).

Claim the idempotency key, update each account's cached balance in primary-key order (a player
account never below zero), write the postings with their balance_after. It raises SQLSTATE LDG01
for insufficient funds and LDG02 for a missing account.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION ledger_post_entry(
    p_key text, p_hash text, p_kind text, p_reason text, p_actor_type text, p_actor_id text,
    p_reference_type text, p_reference_id text, p_reverses bigint,
    p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_id bigint, existing_hash text) LANGUAGE plpgsql AS $$
DECLARE
    v_entry bigint;
    v_account bigint;
    v_delta bigint;
    v_balance bigint;
    v_ids bigint[] := '{}';
    v_running bigint[] := '{}';
    v_after bigint[] := '{}';
    i integer;
    j integer;
BEGIN
    INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,
                                     reference_type, reference_id, reverses_id, created_at)
    VALUES (p_key, p_hash, p_kind, p_reason, p_actor_type, p_actor_id, p_reference_type, p_reference_id,
            p_reverses, statement_timestamp())
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id INTO v_entry;
    IF v_entry IS NULL THEN
        RETURN QUERY SELECT e.id, e.request_hash::text FROM ledger_journalentry e WHERE e.idempotency_key = p_key;
        RETURN;
    END IF;

    FOR v_account, v_delta IN
        SELECT a, SUM(d)::bigint FROM unnest(p_accounts, p_amounts) AS l(a, d) GROUP BY a ORDER BY a
    LOOP
        IF v_delta = 0 THEN
            SELECT balance INTO v_balance FROM ledger_account WHERE id = v_account;
        ELSE
            UPDATE ledger_account SET balance = balance + v_delta
             WHERE id = v_account
               AND (kind NOT IN ('player_wallet', 'player_in_play') OR balance + v_delta >= 0)
            RETURNING balance INTO v_balance;
        END IF;
        IF NOT FOUND THEN
            IF EXISTS (SELECT 1 FROM ledger_account WHERE id = v_account) THEN
                RAISE EXCEPTION 'insufficient funds on ledger account %', v_account USING ERRCODE = 'LDG01';
            END IF;
            RAISE EXCEPTION 'ledger account % does not exist', v_account USING ERRCODE = 'LDG02';
        END IF;
        v_ids := v_ids || v_account;
        v_running := v_running || (v_balance - v_delta);  -- the balance before this entry
    END LOOP;

    FOR i IN 1 .. array_length(p_accounts, 1) LOOP
        j := array_position(v_ids, p_accounts[i]);
        v_running[j] := v_running[j] + p_amounts[i];
        v_after := v_after || v_running[j];
    END LOOP;

    INSERT INTO ledger_posting (entry_id, account_id, direction, amount, currency, balance_after)
    SELECT v_entry, l.a, CASE WHEN l.d > 0 THEN 'C' ELSE 'D' END, abs(l.d), l.c, l.b
      FROM unnest(p_accounts, p_amounts, p_currencies, v_after) WITH ORDINALITY AS l(a, d, c, b, n)
     ORDER BY l.n;
    RETURN QUERY SELECT v_entry, NULL::text;
END $$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTION)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "DROP FUNCTION IF EXISTS ledger_post_entry("
            "text, text, text, text, text, text, text, text, bigint, bigint[], bigint[], text[])"
        )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_database_guards")]
    operations = [migrations.RunPython(forward, backward)]
