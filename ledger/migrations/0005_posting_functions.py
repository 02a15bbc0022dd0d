"""The ledger's functions for other apps' SQL, and `ledger_post_entry` hashing the request itself.

* `ledger_post_entry` hashes the request: one recipe for the request hash, whoever posts.
* `ledger_player_accounts(player, currency)`: the player's wallet and money-in-play account ids.
* `ledger_house_account(currency, shard)`: a shard of the house bankroll, opened when missing.
* `ledger_lock_accounts(ids)`: row locks on accounts in primary-key order, for a caller about to post
  several entries in one transaction (a settlement batch), so that concurrent callers never lock
  the same rows in different orders.

Casino settlement now posts a batch of entries from SQL (`casino_rounds_settle`, casino migration
0008), so the hash that tells a retried key with the same content from one with other content is
computed here, for every caller, instead of in Python. The function answers `outcome`: `posted`,
`replayed` (the key was taken with the same content: the original entry) or `conflict`.

The recipe changes with it: an entry posted before this migration and posted again under its key
with the same content afterwards would be a conflict. Ledger keys are made of the ids of the
objects they move money for (a round, a transfer, an adjustment), each posted by one service
once, so no key is posted again across the upgrade.
"""

import importlib

from django.db import migrations

# PL/pgSQL, not SQL: a SQL function that cannot be inlined is planned again on every call.
HASH = """
CREATE OR REPLACE FUNCTION ledger_request_hash(
    p_kind text, p_reference_type text, p_reference_id text, p_reverses bigint, p_accounts bigint[], p_amounts bigint[]
) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    v_lines text;
BEGIN
    SELECT string_agg(a::text || ':' || d::text, ',' ORDER BY a, d) INTO v_lines
      FROM unnest(p_accounts, p_amounts) AS l(a, d);
    RETURN encode(sha256(convert_to(
        p_kind || E'\\n' || p_reference_type || E'\\n' || p_reference_id || E'\\n' || coalesce(p_reverses::text, '')
        || E'\\n' || v_lines, 'UTF8')), 'hex');
END $$;
"""

ACCOUNTS = """
CREATE OR REPLACE FUNCTION ledger_player_accounts(p_player bigint, p_currency text)
RETURNS TABLE (wallet_id bigint, in_play_id bigint) LANGUAGE sql STABLE AS $$
    SELECT max(id) FILTER (WHERE kind = 'player_wallet'), max(id) FILTER (WHERE kind = 'player_in_play')
      FROM ledger_account WHERE player_id = p_player AND currency = p_currency
$$;

CREATE OR REPLACE FUNCTION ledger_house_account(p_currency text, p_shard integer)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
BEGIN
    SELECT id INTO v_id FROM ledger_account
     WHERE kind = 'house' AND currency = p_currency AND shard = p_shard AND player_id IS NULL AND partner_id IS NULL;
    IF v_id IS NULL THEN
        INSERT INTO ledger_account (kind, currency, shard, balance, created_at)
        VALUES ('house', p_currency, p_shard, 0, statement_timestamp())
        ON CONFLICT (kind, currency, shard) WHERE player_id IS NULL AND partner_id IS NULL DO NOTHING
        RETURNING id INTO v_id;
        IF v_id IS NULL THEN  -- opened by a concurrent caller meanwhile
            SELECT id INTO v_id FROM ledger_account WHERE kind = 'house' AND currency = p_currency
               AND shard = p_shard AND player_id IS NULL AND partner_id IS NULL;
        END IF;
    END IF;
    RETURN v_id;
END $$;

CREATE OR REPLACE FUNCTION ledger_lock_accounts(p_ids bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = ANY(p_ids) ORDER BY id FOR NO KEY UPDATE;
END $$;
"""

POST = """
DROP FUNCTION IF EXISTS ledger_post_entry(
    text, text, text, text, text, text, text, text, bigint, bigint[], bigint[], text[]);
CREATE FUNCTION ledger_post_entry(
    p_key text, p_kind text, p_reason text, p_actor_type text, p_actor_id text,
    p_reference_type text, p_reference_id text, p_reverses bigint,
    p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_id bigint, outcome text) LANGUAGE plpgsql AS $$
DECLARE
    v_hash text := ledger_request_hash(p_kind, p_reference_type, p_reference_id, p_reverses, p_accounts, p_amounts);
    v_entry bigint;
    v_existing text;
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
    VALUES (p_key, v_hash, p_kind, p_reason, p_actor_type, p_actor_id, p_reference_type, p_reference_id,
            p_reverses, statement_timestamp())
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id INTO v_entry;
    IF v_entry IS NULL THEN
        SELECT e.id, e.request_hash INTO v_entry, v_existing FROM ledger_journalentry e WHERE e.idempotency_key = p_key;
        RETURN QUERY SELECT v_entry, CASE WHEN v_existing = v_hash THEN 'replayed' ELSE 'conflict' END;
        RETURN;
    END IF;

    -- Balances in primary-key order: every writer locks account rows in the same order.
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
    RETURN QUERY SELECT v_entry, 'posted'::text;
END $$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(HASH)
        cursor.execute(ACCOUNTS)
        cursor.execute(POST)


def backward(apps, schema_editor):
    previous = importlib.import_module("ledger.migrations.0003_post_entry_function")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "DROP FUNCTION ledger_post_entry(text, text, text, text, text, text, text, bigint, bigint[], bigint[], text[]);"
            " DROP FUNCTION ledger_request_hash(text, text, text, bigint, bigint[], bigint[]);"
            " DROP FUNCTION ledger_player_accounts(bigint, text); DROP FUNCTION ledger_house_account(text, integer);"
            " DROP FUNCTION ledger_lock_accounts(bigint[]);"
        )
        cursor.execute(previous.FUNCTION)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_posting_lines_in_balance_order")]
    operations = [migrations.RunPython(forward, backward)]
