"""Every hand-written SQL statement of player protection, each tested in `tests/protection/test_sql.py`.

`protection_stake_guards` (migrations/0002) is the one place the rules of "excluded now" and "the
limit in force now" are written for statements: every round and deposit asks inside its
transaction, and the casino's round statement (casino/sql.py) asks through it too.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection

STAKE_GUARDS = "SELECT excluded, limits FROM protection_stake_guards(%s, %s, %s)"


def stake_guards(*, player_id: int, kinds: list[str], at: datetime) -> tuple[bool, list]:
    """Whether the player is excluded at `at`, and its limits of these kinds in force then, as
    [kind, period, amount] (amount None: the limit was removed)."""
    with connection.cursor() as cursor:
        cursor.execute(STAKE_GUARDS, [player_id, kinds, at])
        excluded, limits = cursor.fetchone()
    return excluded, json.loads(limits)  # Django has psycopg hand jsonb over as text
