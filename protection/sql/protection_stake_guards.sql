CREATE OR REPLACE FUNCTION protection_stake_guards(p_player bigint, p_kinds text[], p_at timestamptz)
RETURNS TABLE (excluded boolean, limits jsonb) LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM protection_exclusion
                    WHERE player_id = p_player AND starts_at <= p_at AND ends_at > p_at),
           (SELECT coalesce(jsonb_agg(jsonb_build_array(l.kind, l.period, l.amount)), '[]'::jsonb)
              FROM (SELECT DISTINCT ON (kind, period) kind, period, amount FROM protection_playerlimit
                     WHERE player_id = p_player AND kind = ANY (p_kinds) AND effective_from <= p_at
                     ORDER BY kind, period, requested_at DESC, id DESC) AS l)
$$;
