"""protection/sql.py's statement (protection_stake_guards), on real PostgreSQL: the rules of
`exclusion_active` and `limit_in_force`, in one statement."""

from datetime import timedelta

import pytest
from django.utils import timezone

from protection import sql
from protection.models import Exclusion, PlayerLimit
from protection.selectors import exclusion_active, limit_in_force
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def _limit(player, kind, period, amount, *, requested, effective):
    return PlayerLimit.objects.create(player=player, kind=kind, period=period, amount=amount, requested_at=requested,
                                      effective_from=effective, requested_by_type="player", requested_by_id="1")  # fmt: skip


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
    Exclusion.objects.create(player=player, kind="timeout", starts_at=now - timedelta(days=2),
                             ends_at=now - timedelta(days=1), requested_by_type="player", requested_by_id="1")  # fmt: skip
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now)[0] is False  # over already
    Exclusion.objects.create(player=player, kind="timeout", starts_at=now - timedelta(hours=1),
                             ends_at=now + timedelta(days=1), requested_by_type="player", requested_by_id="1")  # fmt: skip
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now)[0] is True
    assert exclusion_active(player=player, at=now) is not None
    assert sql.stake_guards(player_id=player.pk, kinds=["wager"], at=now + timedelta(days=2)) == (False, [
        ["wager", "day", 5_000]])  # fmt: skip
