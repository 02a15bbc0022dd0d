-- The shard of the house bankroll that the money movement keyed `p_key` (its idempotency key, e.g.
-- `round:<id>:settle`) posts to: one of 32, always the same for the same key (a retry posts where
-- the first try did), spread evenly. The only rule of the house shard: SQL calls it
-- (casino_rounds_settle) and Python reads the account through it (ledger.sql.house_account).
CREATE OR REPLACE FUNCTION ledger_house_shard(p_key text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT get_byte(decode(md5(p_key), 'hex'), 15) % 32
$$;
