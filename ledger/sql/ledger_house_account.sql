-- The house bankroll's account of this currency and shard (ledger_house_shard picks the shard),
-- opened when missing.
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
