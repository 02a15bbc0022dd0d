-- The only implementation of posting: several entries by one call, each with its own idempotency key,
-- content and postings (ledger_post_entry is it for one). A key taken already answers `replayed`
-- (same content: its request hash) or `conflict`, and posts nothing; a player account never below
-- zero after any entry: LDG01; a missing account: LDG02; malformed input: LDG03. Whatever refuses,
-- nothing stays written (the exception undoes the call's statements). The balance trigger checks
-- the postings entry by entry.
--
-- Three statements, whatever the number of entries (docs/BENCHMARKS.md, "Posting in fewer
-- statements"): the entries, with their request hashes, in one INSERT (a taken key reads its entry
-- in one more statement); the accounts locked and moved in one; the postings in one INSERT. One
-- entry (the round's stake, most callers) is checked and inserted by its own branch, each check a
-- plain expression; several entries (settlement, a seamless stake) hash and check their keys in one
-- statement more. Both then lock, move and post by the same statements. (One statement of
-- data-modifying CTEs for the whole entry was measured: it cost more CPU than the three.)
--
-- The lock order, as every writer of balances keeps it (no deadlock between two postings): the
-- accounts' rows are locked in primary-key order (FOR NO KEY UPDATE over an ORDER BY id, in the CTE
-- `locked`) before any of them is updated. The UPDATE's WHERE holds `(SELECT count(*) FROM
-- locked)`: an uncorrelated subquery, run once (an InitPlan) before the UPDATE's scan returns its
-- first row (a one-time filter), and a count, which reads the whole of `locked` (MATERIALIZED:
-- never folded into the UPDATE) before it answers; so every lock is taken, in key order, before
-- the first row changes. The count also tells a missing account (LDG02) from a refused balance
-- (LDG01) without another statement.
CREATE OR REPLACE FUNCTION ledger_post_entries(
    p_keys text[], p_kinds text[], p_reasons text[], p_actor_types text[], p_actor_ids text[],
    p_reference_types text[], p_reference_ids text[], p_reverses bigint[],
    p_line_entries integer[], p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_index integer, entry_id bigint, outcome text) LANGUAGE plpgsql AS $$
DECLARE
    v_count integer := cardinality(p_keys);
    v_lines integer := cardinality(p_accounts);
    v_id bigint;
    v_hashes text[];
    v_entries integer;
    v_keys integer;
    v_new_ids bigint[];
    v_new_keys text[];
    v_ids bigint[];  -- by entry: its id (the new entry's, or the one its key has)
    v_outcomes text[];  -- by entry: posted, replayed or conflict
    v_accounts integer;
    v_locked integer;
    v_updated integer;
    v_account_ids bigint[];
    v_running bigint[];  -- by account: its balance as the lines are posted
    v_floored boolean[];  -- by account: a player's, which may not go below zero
    v_lines_ok boolean;
    v_after bigint[] := '{}';  -- by line: its account's balance after it
    v_touched integer[] := '{}';
    v_entry integer;
    v_last integer := 1;
    i integer;
    j integer;
BEGIN
    IF v_count = 1 THEN  -- one entry
        IF (v_lines > 0 AND 1 = ALL (p_line_entries) AND cardinality(p_line_entries) = v_lines
            AND cardinality(p_amounts) = v_lines AND cardinality(p_currencies) = v_lines) IS NOT TRUE THEN
            RAISE EXCEPTION 'ledger entries need distinct keys and lines each (1 entry, % lines)', v_lines
                USING ERRCODE = 'LDG03';
        END IF;
        -- Its request hash: its content, its lines in a canonical order (the recipe of every entry's).
        INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,
                                         reference_type, reference_id, reverses_id, created_at)
        SELECT p_keys[1], encode(sha256(convert_to(
                   p_kinds[1] || E'\n' || p_reference_types[1] || E'\n' || p_reference_ids[1] || E'\n'
                   || coalesce(p_reverses[1]::text, '') || E'\n'
                   || string_agg(l.a::text || ':' || l.d::text, ',' ORDER BY l.a, l.d), 'UTF8')), 'hex'),
               p_kinds[1], p_reasons[1], p_actor_types[1], p_actor_ids[1], p_reference_types[1], p_reference_ids[1],
               p_reverses[1], statement_timestamp()
          FROM unnest(p_accounts, p_amounts) AS l(a, d)
        ON CONFLICT (idempotency_key) DO NOTHING
        RETURNING id INTO v_id;
        entry_index := 1;
        IF v_id IS NULL THEN
            -- The key is taken. A statement of its own: it sees an entry that a concurrent
            -- transaction committed while the INSERT waited for it. The same hash as above.
            SELECT e.id,
                   CASE WHEN e.request_hash = (
                            SELECT encode(sha256(convert_to(
                                       p_kinds[1] || E'\n' || p_reference_types[1] || E'\n' || p_reference_ids[1]
                                       || E'\n' || coalesce(p_reverses[1]::text, '') || E'\n'
                                       || string_agg(l.a::text || ':' || l.d::text, ',' ORDER BY l.a, l.d), 'UTF8')),
                                   'hex')
                              FROM unnest(p_accounts, p_amounts) AS l(a, d))
                        THEN 'replayed' ELSE 'conflict' END
              INTO entry_id, outcome
              FROM ledger_journalentry e WHERE e.idempotency_key = p_keys[1];
            RETURN NEXT;
            RETURN;
        END IF;
        v_ids := ARRAY[v_id];
        v_outcomes := ARRAY['posted'];
        v_entries := 1;
    ELSE
        -- Several entries. Each entry's request hash (the recipe above), and how many distinct keys.
        SELECT array_agg(h.hash ORDER BY h.e), count(*), coalesce(bool_and(h.e BETWEEN 1 AND v_count), false),
               (SELECT count(DISTINCT k) FROM unnest(p_keys) AS k)
          INTO v_hashes, v_entries, v_lines_ok, v_keys
          FROM (SELECT l.e, encode(sha256(convert_to(
                           p_kinds[l.e] || E'\n' || p_reference_types[l.e] || E'\n' || p_reference_ids[l.e] || E'\n'
                           || coalesce(p_reverses[l.e]::text, '') || E'\n'
                           || string_agg(l.a::text || ':' || l.d::text, ',' ORDER BY l.a, l.d), 'UTF8')), 'hex') AS hash
                  FROM unnest(p_line_entries, p_accounts, p_amounts) AS l(e, a, d)
                 GROUP BY l.e) AS h;
        IF v_entries IS DISTINCT FROM v_count OR NOT v_lines_ok OR cardinality(p_line_entries) <> v_lines
           OR cardinality(p_amounts) <> v_lines OR cardinality(p_currencies) <> v_lines OR v_keys < v_count THEN
            RAISE EXCEPTION 'ledger entries need distinct keys and lines each (% entries, lines for %)', v_count, v_entries
                USING ERRCODE = 'LDG03';
        END IF;

        WITH inserted AS (
            INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,
                                             reference_type, reference_id, reverses_id, created_at)
            SELECT k.key, v_hashes[k.e], p_kinds[k.e], p_reasons[k.e], p_actor_types[k.e], p_actor_ids[k.e],
                   p_reference_types[k.e], p_reference_ids[k.e], p_reverses[k.e], statement_timestamp()
              FROM unnest(p_keys) WITH ORDINALITY AS k(key, e)
             ORDER BY k.e
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING id, idempotency_key
        )
        SELECT array_agg(inserted.id), array_agg(inserted.idempotency_key), count(*)
          INTO v_new_ids, v_new_keys, v_entries
          FROM inserted;

        IF v_entries = v_count THEN  -- every entry new: their ids in the order of the keys (the INSERT's)
            v_ids := v_new_ids;
            v_outcomes := array_fill('posted'::text, ARRAY[v_count]);
            IF v_new_keys IS DISTINCT FROM p_keys THEN
                SELECT array_agg(n.id ORDER BY k.e) INTO v_ids
                  FROM unnest(p_keys) WITH ORDINALITY AS k(key, e)
                  JOIN unnest(v_new_ids, v_new_keys) AS n(id, key) ON n.key = k.key;
            END IF;
        ELSE
            -- A statement of its own: it sees an entry that a concurrent transaction committed while
            -- the INSERT waited for it.
            SELECT array_agg(coalesce(n.id, e.id) ORDER BY k.e),
                   array_agg(CASE WHEN n.id IS NOT NULL THEN 'posted'
                                  WHEN e.request_hash = v_hashes[k.e] THEN 'replayed' ELSE 'conflict' END ORDER BY k.e)
              INTO v_ids, v_outcomes
              FROM unnest(p_keys) WITH ORDINALITY AS k(key, e)
              LEFT JOIN unnest(v_new_ids, v_new_keys) AS n(id, key) ON n.key = k.key
              LEFT JOIN ledger_journalentry e ON n.id IS NULL AND e.idempotency_key = k.key;
        END IF;

    END IF;

    IF v_entries > 0 THEN
        -- The accounts of the new entries locked in primary-key order (above), then each moved (a
        -- player's never below zero); the UPDATE answers each balance before these entries.
        WITH locked AS MATERIALIZED (
            SELECT a.id FROM ledger_account a
             WHERE a.id IN (SELECT l.a FROM unnest(p_line_entries, p_accounts) AS l(e, a) WHERE v_outcomes[l.e] = 'posted')
             ORDER BY a.id FOR NO KEY UPDATE
        ), deltas AS (
            SELECT l.a, sum(l.d)::bigint AS d
              FROM unnest(p_line_entries, p_accounts, p_amounts) AS l(e, a, d)
             WHERE v_outcomes[l.e] = 'posted'
             GROUP BY l.a
        ), updated AS (
            UPDATE ledger_account account SET balance = account.balance + deltas.d
              FROM deltas
             WHERE account.id = deltas.a AND (SELECT count(*) FROM locked) > 0
               AND (account.kind NOT IN ('player_wallet', 'player_in_play') OR account.balance + deltas.d >= 0)
            RETURNING account.id, account.balance - deltas.d AS before,
                      account.kind IN ('player_wallet', 'player_in_play') AS floored
        )
        SELECT array_agg(updated.id), array_agg(updated.before), array_agg(updated.floored), count(*),
               (SELECT count(*) FROM locked), (SELECT count(*) FROM deltas)
          INTO v_account_ids, v_running, v_floored, v_updated, v_locked, v_accounts
          FROM updated;
        IF v_updated < v_accounts THEN
            IF v_locked = v_accounts THEN
                RAISE EXCEPTION 'insufficient funds on a ledger account of entry %', p_keys[1] USING ERRCODE = 'LDG01';
            END IF;
            RAISE EXCEPTION 'a ledger account of entry % does not exist', p_keys[1] USING ERRCODE = 'LDG02';
        END IF;

        -- Each posting's balance after it, line by line in the order given; the lines grouped
        -- entry by entry, a player account may not be below zero once any of them is posted (the
        -- UPDATE checked where the last one leaves it).
        FOR i IN 1 .. v_lines LOOP
            v_entry := p_line_entries[i];
            IF v_entry <> v_last THEN
                IF v_entry < v_last THEN
                    RAISE EXCEPTION 'the lines of ledger entries must come entry by entry' USING ERRCODE = 'LDG03';
                END IF;
                FOREACH j IN ARRAY v_touched LOOP
                    IF v_floored[j] AND v_running[j] < 0 THEN
                        RAISE EXCEPTION 'insufficient funds on a ledger account of entry %', p_keys[v_last]
                            USING ERRCODE = 'LDG01';
                    END IF;
                END LOOP;
                v_touched := '{}';
                v_last := v_entry;
            END IF;
            IF v_outcomes[v_entry] <> 'posted' THEN
                v_after := v_after || NULL::bigint;
                CONTINUE;
            END IF;
            j := array_position(v_account_ids, p_accounts[i]);
            v_running[j] := v_running[j] + p_amounts[i];
            v_after := v_after || v_running[j];
            v_touched := v_touched || j;
        END LOOP;

        INSERT INTO ledger_posting (entry_id, account_id, direction, amount, currency, balance_after)
        SELECT v_ids[l.e], l.a, CASE WHEN l.d > 0 THEN 'C' ELSE 'D' END, abs(l.d), l.c, l.b
          FROM unnest(p_line_entries, p_accounts, p_amounts, p_currencies, v_after) WITH ORDINALITY AS l(e, a, d, c, b, n)
         WHERE v_outcomes[l.e] = 'posted'
         ORDER BY l.n;
    END IF;

    FOR i IN 1 .. v_count LOOP  -- not a query: a statement here would be planned again on every call
        entry_index := i;
        entry_id := v_ids[i];
        outcome := v_outcomes[i];
        RETURN NEXT;
    END LOOP;
END $$;
