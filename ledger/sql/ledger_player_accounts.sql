-- The player's wallet and money-in-play account ids in this currency.
CREATE OR REPLACE FUNCTION ledger_player_accounts(p_player bigint, p_currency text)
RETURNS TABLE (wallet_id bigint, in_play_id bigint) LANGUAGE sql STABLE AS $$
    SELECT max(id) FILTER (WHERE kind = 'player_wallet'), max(id) FILTER (WHERE kind = 'player_in_play')
      FROM ledger_account WHERE player_id = p_player AND currency = p_currency
$$;
