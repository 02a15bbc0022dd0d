CREATE OR REPLACE FUNCTION casino_rounds_settle(p_ids uuid[], p_resolved_before timestamp with time zone, p_limit integer)
 RETURNS TABLE(settled_round uuid, webhook_partner bigint, credit_call uuid)
 LANGUAGE plpgsql
AS $function$
-- Settles resolved rounds, transfer and seamless alike, in one statement: every round's stake
-- leaves money in play (the payout to the wallet, the rest to or from the house shard of its
-- settlement key: ledger_house_shard of `round:<id>:settle`). A seamless round's payout then goes
-- from the wallet back to the partner's seamless account, and its credit (0 for a lost round) is
-- recorded as a pending wallet call, sent after commit (casino/services/wallets.py): the round
-- stays `resolved`, its settle_attempts 1, until the partner acknowledges the credit. Returns each
-- round done, with its partner when it takes webhooks now (a transfer round's) and its credit (a
-- seamless round's).
--
-- The accounts are locked last: every entry is posted by one call of ledger_post_entries at the
-- very end, which locks the batch's accounts in primary-key order, waiting for a round being
-- placed (its statement holds a player's accounts for well under a millisecond), and holds them
-- only to the commit. A round being placed for one of the batch's players waits for that much
-- of the batch, not for all of it (docs/BENCHMARKS.md, "Settlement that locks the accounts last").
DECLARE
    v_ids uuid[];
    v_players bigint[];
    v_currencies text[];
    v_staked bigint[];
    v_payouts bigint[];
    v_outcomes text[];
    v_seamless boolean[];
    v_partners bigint[];
    v_externals text[];
    v_wallets bigint[] := '{}';
    v_in_play bigint[] := '{}';
    v_houses bigint[] := '{}';
    v_partner_accounts bigint[] := '{}';  -- a seamless round's shard of its partner's seamless account
    v_credited integer[] := '{}';  -- the seamless rounds done (their places in v_ids)
    v_keys text[] := '{}';
    v_kinds text[] := '{}';
    v_reasons text[] := '{}';
    v_references text[] := '{}';
    v_line_entries integer[] := '{}';
    v_accounts bigint[] := '{}';
    v_amounts bigint[] := '{}';
    v_line_currencies text[] := '{}';
    v_credit_ids uuid[] := '{}';
    v_credit_rounds uuid[] := '{}';
    v_entry integer;
    v_entries integer;
    v_conflict integer;
    i integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7461002) THEN
        RETURN;  -- another batch is settling: it, or the next one, takes these rounds
    END IF;
    -- A seamless round whose books are settled (settle_attempts 1) waits for its credit's answer.
    IF p_ids IS NULL THEN
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome), array_agg(c.seamless), array_agg(p.partner_id),
               array_agg(p.external_id), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, ledger_house_shard('round:' || c.id || ':settle'))),
               array_agg(s.id)
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_seamless, v_partners, v_externals,
               v_wallets, v_in_play, v_houses, v_partner_accounts
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome, r.seamless
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND (NOT r.seamless OR r.settle_attempts = 0)
                   AND r.resolved_at <= p_resolved_before
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c
          JOIN accounts_player p ON p.id = c.player_id
         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a
          LEFT JOIN ledger_account s ON c.seamless AND s.kind = 'partner_seamless' AND s.partner_id = p.partner_id
                                    AND s.currency = c.currency AND s.shard = c.player_id % 32;
    ELSE
        SELECT array_agg(c.id), array_agg(c.player_id), array_agg(c.currency), array_agg(c.staked),
               array_agg(c.payout), array_agg(c.outcome), array_agg(c.seamless), array_agg(p.partner_id),
               array_agg(p.external_id), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, ledger_house_shard('round:' || c.id || ':settle'))),
               array_agg(s.id)
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_seamless, v_partners, v_externals,
               v_wallets, v_in_play, v_houses, v_partner_accounts
          FROM (SELECT r.id, r.player_id, r.currency, r.main_bet + r.tie_bet + r.raise_bet AS staked, r.payout,
                       r.outcome, r.seamless
                  FROM casino_round r
                 WHERE r.status = 'resolved' AND (NOT r.seamless OR r.settle_attempts = 0) AND r.id = ANY (p_ids)
                 ORDER BY r.resolved_at LIMIT p_limit
                   FOR UPDATE SKIP LOCKED) AS c
          JOIN accounts_player p ON p.id = c.player_id
         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a
          LEFT JOIN ledger_account s ON c.seamless AND s.kind = 'partner_seamless' AND s.partner_id = p.partner_id
                                    AND s.currency = c.currency AND s.shard = c.player_id % 32;
    END IF;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    FOR i IN 1 .. array_length(v_ids, 1) LOOP
        IF v_seamless[i] AND v_partner_accounts[i] IS NULL THEN
            RAISE EXCEPTION 'seamless round % has no seamless account of its partner', v_ids[i] USING ERRCODE = 'CSN03';
        END IF;
        v_entry := cardinality(v_keys) + 1;
        v_keys := v_keys || ('round:' || v_ids[i] || ':settle');
        v_kinds := v_kinds || 'settlement'::text;
        v_reasons := v_reasons || (v_outcomes[i] || ': payout ' || v_payouts[i] || ' of ' || v_staked[i] || ' staked');
        v_references := v_references || v_ids[i]::text;
        -- The round's entry: its stake out of money in play, the payout to the wallet, the rest
        -- to or from the house.
        v_line_entries := v_line_entries || v_entry;
        v_accounts := v_accounts || v_in_play[i];
        v_amounts := v_amounts || -v_staked[i];
        IF v_payouts[i] > 0 THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_wallets[i];
            v_amounts := v_amounts || v_payouts[i];
        END IF;
        IF v_staked[i] <> v_payouts[i] THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_houses[i];
            v_amounts := v_amounts || (v_staked[i] - v_payouts[i]);
        END IF;
        IF v_seamless[i] THEN
            v_credited := v_credited || i;
            IF v_payouts[i] > 0 THEN  -- the payout leaves the wallet here for the partner's wallet
                v_entry := v_entry + 1;
                v_keys := v_keys || ('round:' || v_ids[i] || ':payout-credit');
                v_kinds := v_kinds || 'seamless_credit'::text;
                v_reasons := v_reasons || 'payout credited to the partner''s wallet'::text;
                v_references := v_references || v_ids[i]::text;
                v_line_entries := v_line_entries || ARRAY[v_entry, v_entry];
                v_accounts := v_accounts || ARRAY[v_partner_accounts[i], v_wallets[i]];
                v_amounts := v_amounts || ARRAY[v_payouts[i], -v_payouts[i]];
            END IF;
        END IF;
        v_line_currencies := v_line_currencies || array_fill(v_currencies[i], ARRAY[cardinality(v_accounts) - cardinality(v_line_currencies)]);
    END LOOP;

    UPDATE casino_round r
       SET status = CASE WHEN d.seamless THEN r.status ELSE 'settled' END,
           settled_at = CASE WHEN d.seamless THEN r.settled_at ELSE statement_timestamp() END,
           settle_attempts = r.settle_attempts + 1
      FROM unnest(v_ids, v_seamless) AS d(id, seamless)
     WHERE r.id = d.id;

    IF cardinality(v_credited) > 0 THEN  -- each seamless round's credit, sent after commit
        WITH credits AS (
            INSERT INTO casino_walletcall (id, transaction_id, kind, purpose, partner_id, player_id, round_id, amount,
                                           currency, status, request_body, attempts, last_error, last_answer,
                                           request_scope, request_key, request_hash, next_attempt_at, created_at)
            SELECT gen_random_uuid(), replace(v_ids[n]::text, '-', '') || '-payout', 'credit', 'payout',
                   v_partners[n], v_players[n], v_ids[n], v_payouts[n], v_currencies[n], 'pending',
                   jsonb_build_object('transaction_id', replace(v_ids[n]::text, '-', '') || '-payout',
                                      'player', v_externals[n], 'currency', v_currencies[n], 'amount', v_payouts[n],
                                      'round', v_ids[n]::text, 'kind', 'payout'),
                   0, '', '', '', '', '', statement_timestamp(), statement_timestamp()
              FROM unnest(v_credited) AS n
            RETURNING id, round_id, transaction_id, amount
        ), audited AS (
            INSERT INTO core_auditevent (actor_type, actor_id, action, object_type, object_id, data, created_at)
            SELECT 'system', 'settlement', 'wallet_call.created', 'wallet_call', credits.transaction_id,
                   jsonb_build_object('kind', 'credit', 'amount', credits.amount, 'round', credits.round_id::text),
                   statement_timestamp()
              FROM credits
        )
        SELECT array_agg(credits.id), array_agg(credits.round_id) INTO v_credit_ids, v_credit_rounds FROM credits;
    END IF;

    RETURN QUERY  -- (the rows are returned when the function ends)
        SELECT s.id, CASE WHEN s.seamless THEN NULL ELSE partner.id END, c.id
          FROM unnest(v_ids, v_players, v_seamless) AS s(id, player_id, seamless)
          JOIN accounts_player p ON p.id = s.player_id
          LEFT JOIN accounts_partner partner ON partner.id = p.partner_id AND partner.webhook_url <> ''
          LEFT JOIN unnest(v_credit_ids, v_credit_rounds) AS c(id, round_id) ON c.round_id = s.id;

    -- Last, every round's entries by one call: the accounts are locked from here to the commit.
    v_entries := cardinality(v_keys);
    SELECT (array_agg(p.entry_index) FILTER (WHERE p.outcome = 'conflict'))[1] INTO v_conflict
      FROM ledger_post_entries(v_keys, v_kinds, v_reasons,
                               array_fill('system'::text, ARRAY[v_entries]),
                               array_fill('settlement'::text, ARRAY[v_entries]),
                               array_fill('round'::text, ARRAY[v_entries]), v_references,
                               array_fill(NULL::bigint, ARRAY[v_entries]), v_line_entries, v_accounts, v_amounts,
                               v_line_currencies) AS p;
    IF v_conflict IS NOT NULL THEN
        RAISE EXCEPTION 'settlement entry % was posted with other content', v_keys[v_conflict]
            USING ERRCODE = 'CSN03';
    END IF;
END $function$;
