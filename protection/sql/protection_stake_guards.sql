-- Whether the player is excluded at `p_at`, and the amounts of its limits of these kinds in force
-- then, as [[kind, period, amount], ...] (amount null: removed): what every round and deposit asks
-- inside its transaction, in one statement (protection.selectors.stake_guards; casino's round
-- statement joins it too, casino/sql/__init__.py).
CREATE OR REPLACE FUNCTION protection_stake_guards(p_player bigint, p_kinds text[], p_at timestamptz)
RETURNS TABLE (excluded boolean, limits jsonb) LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM protection_exclusion
                    WHERE player_id = p_player AND starts_at <= p_at AND ends_at > p_at),
           (SELECT coalesce(jsonb_agg(jsonb_build_array(l.kind, l.period, l.amount)), '[]'::jsonb)
              FROM protection_limits_in_force(p_player, p_kinds, p_at) AS l)
$$;
