-- The only implementation of posting: several entries by one call, each with its own idempotency key,
-- content and postings (ledger_post_entry is it for one). Each entry's request hash; all entries in
-- one INSERT (a key taken already answers `replayed`, same content, or `conflict`, and posts nothing);
-- the accounts locked in primary-key order in one statement and moved in one more (a player account
-- never below zero after any entry: LDG01; a missing account: LDG02; malformed input: LDG03); all
-- the postings in one INSERT, which the balance trigger checks entry by entry. The statements run
-- once per call, whatever the number of entries (docs/BENCHMARKS.md).
CREATE OR REPLACE FUNCTION ledger_post_entries(
    p_keys text[], p_kinds text[], p_reasons text[], p_actor_types text[], p_actor_ids text[],
    p_reference_types text[], p_reference_ids text[], p_reverses bigint[],
    p_line_entries integer[], p_accounts bigint[], p_amounts bigint[], p_currencies text[]
) RETURNS TABLE (entry_index integer, entry_id bigint, outcome text) LANGUAGE plpgsql AS $$
DECLARE
    v_count integer := cardinality(p_keys);
    v_hashes text[];
    v_entries integer;
    v_new_ids bigint[];
    v_new_keys text[];
    v_ids bigint[];  -- by entry: its id (the new entry's, or the one its key has)
    v_outcomes text[];  -- by entry: posted, replayed or conflict
    v_accounts integer;
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
    -- Each entry's request hash: its content, its lines in a canonical order (ledger_request_hash's recipe).
    SELECT array_agg(h.hash ORDER BY h.e), count(*), coalesce(bool_and(h.e BETWEEN 1 AND v_count), false)
      INTO v_hashes, v_entries, v_lines_ok
      FROM (SELECT l.e, encode(sha256(convert_to(
                       p_kinds[l.e] || E'\n' || p_reference_types[l.e] || E'\n' || p_reference_ids[l.e] || E'\n'
                       || coalesce(p_reverses[l.e]::text, '') || E'\n'
                       || string_agg(l.a::text || ':' || l.d::text, ',' ORDER BY l.a, l.d), 'UTF8')), 'hex') AS hash
              FROM unnest(p_line_entries, p_accounts, p_amounts) AS l(e, a, d)
             GROUP BY l.e) AS h;
    IF v_entries IS DISTINCT FROM v_count OR NOT v_lines_ok OR cardinality(p_line_entries) <> cardinality(p_accounts)
       OR cardinality(p_amounts) <> cardinality(p_accounts) OR cardinality(p_currencies) <> cardinality(p_accounts)
       OR (v_count > 1 AND (SELECT count(DISTINCT k) FROM unnest(p_keys) AS k) < v_count) THEN
        RAISE EXCEPTION 'ledger entries need distinct keys and lines each (% entries, lines for %)', v_count, v_entries
            USING ERRCODE = 'LDG03';
    END IF;

    IF v_count = 1 THEN  -- the common case, in the cheaper statement (docs/BENCHMARKS.md)
        INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,
                                         reference_type, reference_id, reverses_id, created_at)
        VALUES (p_keys[1], v_hashes[1], p_kinds[1], p_reasons[1], p_actor_types[1], p_actor_ids[1],
                p_reference_types[1], p_reference_ids[1], p_reverses[1], statement_timestamp())
        ON CONFLICT (idempotency_key) DO NOTHING
        RETURNING ARRAY[id] INTO v_new_ids;
        v_new_keys := p_keys;
    ELSE
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
        SELECT array_agg(inserted.id), array_agg(inserted.idempotency_key) INTO v_new_ids, v_new_keys FROM inserted;
    END IF;

    IF v_count = 1 AND v_new_ids IS NOT NULL THEN
        v_ids := v_new_ids;
        v_outcomes := ARRAY['posted'];
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

    IF v_new_ids IS NOT NULL THEN
        -- Rows locked in primary-key order, as every writer locks them; then every balance in one
        -- statement, which answers each balance before these entries.
        PERFORM 1 FROM ledger_account
          WHERE id IN (SELECT l.a FROM unnest(p_line_entries, p_accounts) AS l(e, a) WHERE v_outcomes[l.e] = 'posted')
          ORDER BY id FOR NO KEY UPDATE;
        WITH deltas AS (
            SELECT l.a, sum(l.d)::bigint AS d
              FROM unnest(p_line_entries, p_accounts, p_amounts) AS l(e, a, d)
             WHERE v_outcomes[l.e] = 'posted'
             GROUP BY l.a
        ), updated AS (
            UPDATE ledger_account account SET balance = account.balance + deltas.d
              FROM deltas
             WHERE account.id = deltas.a
               AND (account.kind NOT IN ('player_wallet', 'player_in_play') OR account.balance + deltas.d >= 0)
            RETURNING account.id, account.balance - deltas.d AS before,
                      account.kind IN ('player_wallet', 'player_in_play') AS floored
        )
        SELECT array_agg(updated.id), array_agg(updated.before), array_agg(updated.floored), count(*),
               (SELECT count(*) FROM deltas)
          INTO v_account_ids, v_running, v_floored, v_updated, v_accounts
          FROM updated;
        IF v_updated < v_accounts THEN
            IF (SELECT count(*) FROM ledger_account
                 WHERE id IN (SELECT l.a FROM unnest(p_line_entries, p_accounts) AS l(e, a)
                               WHERE v_outcomes[l.e] = 'posted')) = v_accounts THEN
                RAISE EXCEPTION 'insufficient funds on a ledger account of entry %', p_keys[1] USING ERRCODE = 'LDG01';
            END IF;
            RAISE EXCEPTION 'a ledger account of entry % does not exist', p_keys[1] USING ERRCODE = 'LDG02';
        END IF;

        -- Each posting's balance after it, line by line in the order given; with several entries
        -- (their lines grouped entry by entry), a player account may not be below zero once any of
        -- them is posted: the UPDATE checked where the last one leaves it.
        IF v_count = 1 THEN  -- one entry: no entry boundaries to check
            FOR i IN 1 .. cardinality(p_accounts) LOOP
                j := array_position(v_account_ids, p_accounts[i]);
                v_running[j] := v_running[j] + p_amounts[i];
                v_after := v_after || v_running[j];
            END LOOP;
        ELSE
            FOR i IN 1 .. cardinality(p_accounts) LOOP
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
        END IF;

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
