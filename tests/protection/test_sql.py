"""protection/sql/'s statements (protection_stake_guards, protection_limits_in_force), on real
PostgreSQL: the rules of `exclusion_active` and `limit_in_force`, in one statement."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protection import sql
from protection.models import Exclusion, PlayerLimit
from protection.selectors import exclusion_active, limit_in_force
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def _limit(player, kind, period, amount, *, requested, effective):
    return PlayerLimit.objects.create(
        player=player,
        kind=kind,
        period=period,
        amount=amount,
        requested_at=requested,
        effective_from=effective,
        requested_by_type="player",
        requested_by_id="1",
    )


def test_stake_guards_read_the_exclusion_and_the_limits_in_force_as_the_selectors_do():
    player = make_player()
    now = timezone.now()
    _limit(player, "wager", "day", 1_000, requested=now - timedelta(hours=3), effective=now - timedelta(hours=3))
    _limit(player, "wager", "day", 5_000, requested=now - timedelta(hours=1), effective=now + timedelta(hours=23))
    _limit(player, "loss", "week", 700, requested=now - timedelta(hours=2), effective=now - timedelta(hours=2))
    _limit(player, "loss", "week", None, requested=now - timedelta(hours=1), effective=now - timedelta(minutes=1))
    _limit(player, "deposit", "day", 300, requested=now, effective=now)
    excluded, limits = sql.stake_guards(player_id=player.pk, kinds=["wager", "loss"], at=now)
    assert excluded is False
    assert sorted(limits) == [["loss", "week", None], ["wager", "day", 1_000]]  # the increase still cools off
    for kind, period, amount in limits:
        in_force = limit_in_force(player=player, kind=kind, period=period, at=now)
        assert in_force.amount == amount
    Exclusion.objects.create(
        player=player,
        kind="timeout",
        starts_at=now - timedelta(days=2),
        ends_at=now - timedelta(days=1),
        requested_by_type="player",
        requested_by_id="1",
    )
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now)[0] is False  # over already
    Exclusion.objects.create(
        player=player,
        kind="timeout",
        starts_at=now - timedelta(hours=1),
        ends_at=now + timedelta(days=1),
        requested_by_type="player",
        requested_by_id="1",
    )
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now)[0] is True
    assert exclusion_active(player=player, at=now) is not None
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now + timedelta(days=2)) == (
        False,
        [["wager", "day", 5_000]],
    )


def test_the_limit_in_force_is_the_databases_one_rule_for_the_selector_and_the_guards():
    """`limit_in_force` reads `protection_limits_in_force`, the function the stake guards are built
    on: one statement, and the latest request already effective wins (the higher id on a tie)."""
    player = make_player()
    now = timezone.now()
    _limit(player, "wager", "day", 1_000, requested=now - timedelta(hours=3), effective=now - timedelta(hours=3))
    same_moment = now - timedelta(hours=2)
    _limit(player, "wager", "day", 800, requested=same_moment, effective=same_moment)
    last = _limit(player, "wager", "day", 600, requested=same_moment, effective=same_moment)
    _limit(player, "wager", "day", 5_000, requested=now - timedelta(hours=1), effective=now + timedelta(hours=23))
    with CaptureQueriesContext(connection) as queries:
        in_force = limit_in_force(player=player, kind="wager", period="day", at=now)
    assert len(queries) == 1 and "protection_limits_in_force(" in queries[0]["sql"]
    assert (in_force.pk, in_force.amount, in_force.requested_at) == (last.pk, 600, same_moment)
    assert limit_in_force(player=player, kind="wager", period="week", at=now) is None
    assert limit_in_force(player=player, kind="wager", period="day", at=now + timedelta(days=1)).amount == 5_000


moments = st.integers(min_value=-5, max_value=5).map(lambda hours: timedelta(hours=hours))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    history=st.lists(
        st.tuples(
            st.sampled_from(["wager", "loss"]),
            st.sampled_from(["day", "week"]),
            st.none() | st.integers(min_value=1, max_value=10_000),
            moments,
            moments,
        ),
        max_size=8,
    ),
    at=moments,
)
def test_the_selector_and_the_guards_agree_on_every_history(history, at):
    player = make_player()
    now = timezone.now()
    for kind, period, amount, requested, effective in history:
        _limit(player, kind, period, amount, requested=now + requested, effective=now + requested + abs(effective))
    _, limits = sql.stake_guards(player_id=player.pk, kinds=["wager", "loss"], at=now + at)
    by_selector = {}
    for kind in ("wager", "loss"):
        for period in ("day", "week"):
            in_force = limit_in_force(player=player, kind=kind, period=period, at=now + at)
            if in_force is not None:
                by_selector[(kind, period)] = in_force.amount
    assert {(kind, period): amount for kind, period, amount in limits} == by_selector
