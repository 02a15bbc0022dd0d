"""Every hand-written SQL statement of player protection, each tested in `tests/protection/test_sql.py`.

The rule of "the limit in force" is written once, in the database function
`protection_limits_in_force` (protection/sql/protection_limits_in_force.sql): the selector
`limit_in_force` reads it, and `protection_stake_guards`, which every round and deposit asks inside
its transaction (the casino's round statement, casino/sql/, through it too), is built on it.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection

from protection.models import PlayerLimit

STAKE_GUARDS = "SELECT excluded, limits FROM protection_stake_guards(%s, %s, %s)"
LIMIT_IN_FORCE = "SELECT * FROM protection_limits_in_force(%s, ARRAY[%s], %s) WHERE period = %s"


def stake_guards(*, player_id: int, kinds: list[str], at: datetime) -> tuple[bool, list]:
    """Whether the player is excluded at `at`, and its limits of these kinds in force then, as
    [kind, period, amount] (amount None: the limit was removed)."""
    with connection.cursor() as cursor:
        cursor.execute(STAKE_GUARDS, [player_id, kinds, at])
        excluded, limits = cursor.fetchone()
    return excluded, json.loads(limits)  # Django has psycopg hand jsonb over as text


def limit_in_force(*, player_id: int, kind: str, period: str, at: datetime) -> PlayerLimit | None:
    """The player's limit row of this kind and period in force at `at`, if any."""
    return next(iter(PlayerLimit.objects.raw(LIMIT_IN_FORCE, [player_id, kind, at, period])), None)
