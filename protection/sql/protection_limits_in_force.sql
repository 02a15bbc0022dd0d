-- The player's limits of these kinds in force at `p_at`, one row per kind and period: of the
-- limits already effective then, the one requested last (a removal is a row whose amount is null).
-- The only rule of "the limit in force": protection_stake_guards reads it for every stake and
-- deposit, protection.selectors.limit_in_force for everything else (protection/sql/__init__.py).
CREATE OR REPLACE FUNCTION protection_limits_in_force(p_player bigint, p_kinds text[], p_at timestamptz)
RETURNS SETOF protection_playerlimit LANGUAGE sql STABLE AS $$
    SELECT DISTINCT ON (l.kind, l.period) l.*
      FROM protection_playerlimit l
     WHERE l.player_id = p_player AND l.kind = ANY (p_kinds) AND l.effective_from <= p_at
     ORDER BY l.kind, l.period, l.requested_at DESC, l.id DESC
$$;
