"""Player protection: limits, cooling-off, time-outs, self-exclusion, reality checks."""

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import partner_create
from accounts.tokens import token_issue
from casino.models import Round
from casino.services.rounds import round_decide, round_place
from casino.services.settlement import round_settle
from core.actors import Actor
from core.errors import LimitExceeded, SelfExcluded, StateConflict
from ledger.selectors import player_wallet_summary
from protection.selectors import limit_in_force, protection_summary, session_figures
from protection.services import exclusion_start, limit_set, reality_check_set, session_start
from tests.casino.helpers import PartnerClient, set_next_round
from tests.factories import TableFactory, make_player


@pytest.fixture
def clock(monkeypatch):
    """Move the service's clock: clock.advance(hours=25)."""

    class Clock:
        offset = timedelta()

        def advance(self, **kwargs):
            self.offset += timedelta(**kwargs)

    c = Clock()
    monkeypatch.setattr("core.clock.now", lambda: timezone.now() + c.offset)
    return c


def place(player, table, main=1000, tie=0):
    """A round, settled once resolved (as a worker does right after the commit)."""
    round_ = round_place(player=player, table_id=table.pk, main_bet=main, tie_bet=tie, actor=Actor.player(player))
    round_settle(round_id=round_.id)
    return round_


ME = None


def caller(player):
    return Actor.player(player)


@pytest.mark.django_db
def test_a_wager_limit_refuses_the_stake_that_would_break_it(table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="wager", period="day", amount=2_500, actor=caller(player))
    place(player, table, main=1000)
    place(player, table, main=1000)
    before = player_wallet_summary(player=player)
    with pytest.raises(
        LimitExceeded, match=r"^This bet would go over your wager limit of €25\.00 per 24 hours: €5\.00 left\.$"
    ):
        place(player, table, main=1000)
    assert player_wallet_summary(player=player) == before and Round.objects.count() == 2
    place(player, table, main=500)  # exactly up to the limit is fine


@pytest.mark.django_db
def test_a_loss_limit_counts_what_was_lost(table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="loss", period="week", amount=2_000, actor=caller(player))
    for _ in range(2):
        set_next_round(player, tie=False, player_wins=False)
        place(player, table, main=1000)
    with pytest.raises(LimitExceeded, match="loss"):
        place(player, table, main=100)
    assert protection_summary(player=player).limits[0].used == 2_000


@pytest.mark.django_db
def test_a_stake_not_paid_back_yet_counts_as_lost(table):
    """Protection measures the wallet's postings: a won round still being settled, or a tie still
    waiting for a decision, has staked and not been paid: the loss limit counts it (cautiously)."""
    player = make_player(balance=100_000)
    limit_set(player=player, kind="loss", period="day", amount=1_500, actor=caller(player))
    set_next_round(player, tie=False, player_wins=True)
    won = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    assert protection_summary(player=player).limits[0].used == 1_000  # staked, not paid yet
    with pytest.raises(LimitExceeded):
        place(player, table, main=1000)
    round_settle(round_id=won.id)
    assert protection_summary(player=player).limits[0].used == 0  # paid 2000 for 1000 staked
    place(player, table, main=1000)


@pytest.mark.django_db
def test_wins_make_room_under_a_loss_limit(table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="loss", period="day", amount=1_000, actor=caller(player))
    set_next_round(player, tie=False, player_wins=True)
    place(player, table, main=1000)  # +1000
    set_next_round(player, tie=False, player_wins=False)
    place(player, table, main=1000)  # back to 0: nothing lost yet
    set_next_round(player, tie=False, player_wins=False)
    place(player, table, main=1000)  # still fits: -1000 is the limit itself
    with pytest.raises(LimitExceeded):
        place(player, table, main=100)


@pytest.mark.django_db
def test_the_lowest_limit_that_applies_wins(table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="wager", period="day", amount=50_000, actor=caller(player))
    limit_set(player=player, kind="wager", period="month", amount=1_500, actor=caller(player))
    place(player, table, main=1000)
    with pytest.raises(LimitExceeded, match="30 days"):
        place(player, table, main=1000)


@pytest.mark.django_db
def test_a_decrease_applies_at_once_an_increase_after_24_hours(clock, table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="wager", period="day", amount=1_000, actor=caller(player))
    limit_set(player=player, kind="wager", period="day", amount=5_000, actor=caller(player))
    assert limit_in_force(player=player, kind="wager", period="day").amount == 1_000
    summary = protection_summary(player=player).limits[0]
    assert summary.amount == 1_000 and summary.pending.amount == 5_000
    clock.advance(hours=23, minutes=59)
    assert limit_in_force(player=player, kind="wager", period="day").amount == 1_000
    clock.advance(minutes=2)
    assert limit_in_force(player=player, kind="wager", period="day").amount == 5_000
    limit_set(player=player, kind="wager", period="day", amount=500, actor=caller(player))
    assert limit_in_force(player=player, kind="wager", period="day").amount == 500


@pytest.mark.django_db
def test_a_removal_waits_and_a_later_decrease_beats_a_pending_increase(clock):
    player = make_player()
    limit_set(player=player, kind="deposit", period="week", amount=10_000, actor=caller(player))
    limit_set(player=player, kind="deposit", period="week", amount=None, actor=caller(player))
    assert limit_in_force(player=player, kind="deposit", period="week").amount == 10_000
    clock.advance(hours=1)
    limit_set(player=player, kind="deposit", period="week", amount=8_000, actor=caller(player))
    clock.advance(hours=30)
    assert limit_in_force(player=player, kind="deposit", period="week").amount == 8_000
    assert protection_summary(player=player).limits[0].pending is None


@pytest.mark.django_db
def test_limits_look_back_over_their_period(clock, table):
    player = make_player(balance=100_000)
    limit_set(player=player, kind="wager", period="day", amount=1_000, actor=caller(player))
    place(player, table, main=1000)
    with pytest.raises(LimitExceeded):
        place(player, table, main=100)
    clock.advance(hours=24, seconds=5)  # yesterday's stakes no longer count
    place(player, table, main=1000)


@pytest.mark.django_db
def test_a_time_out_refuses_rounds_and_deposits_signs_out_and_lets_a_waiting_round_finish(clock, client, table):
    partner, secret = partner_create(name="P")
    api = PartnerClient(client, partner, secret)
    api.put("/api/v1/partner/players/x1/", {"currency": "EUR"})
    api.post(
        "/api/v1/partner/players/x1/transfers/",
        {"direction": "in", "amount": 10_000, "reference": "a"},
        HTTP_IDEMPOTENCY_KEY="a",
    )
    player = partner.players.get()
    token_issue(user=player.user)
    set_next_round(player, tie=True)
    waiting = place(player, table)
    exclusion_start(player=player, kind="timeout", days=2, actor=caller(player))
    assert not ApiToken.objects.filter(user=player.user).exists()
    with pytest.raises(SelfExcluded):
        place(player, table)
    refused = api.post(
        "/api/v1/partner/players/x1/transfers/",
        {"direction": "in", "amount": 100, "reference": "b"},
        HTTP_IDEMPOTENCY_KEY="b",
    )
    assert refused.status_code == 422 and refused.json()["code"] == "self_excluded"
    out = api.post(
        "/api/v1/partner/players/x1/transfers/",
        {"direction": "out", "amount": 100, "reference": "c"},
        HTTP_IDEMPOTENCY_KEY="c",
    )
    assert out.status_code == 201  # the player's money can still leave
    assert (
        round_decide(player=player, round_id=waiting.id, action="surrender", actor=caller(player)).outcome
        == "surrender"
    )
    with pytest.raises(StateConflict):
        exclusion_start(player=player, kind="timeout", days=1, actor=caller(player))  # no shortening
    clock.advance(days=2, seconds=1)
    place(player, table)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "extra"),
    [("timeout", {"days": 0}), ("timeout", {"days": 43}), ("self_exclusion", {"months": 3}), ("timeout", {})],
)
def test_exclusion_lengths_are_checked(kind, extra):
    from core.errors import InvalidInput

    player = make_player()
    with pytest.raises(InvalidInput):
        exclusion_start(player=player, kind=kind, actor=caller(player), **extra)


@pytest.mark.django_db
def test_self_exclusion_lasts_its_months(clock):
    player = make_player()
    exclusion = exclusion_start(player=player, kind="self_exclusion", months=6, actor=caller(player))
    assert 182 <= (exclusion.ends_at - exclusion.starts_at).days <= 184
    clock.advance(days=100)
    assert protection_summary(player=player).exclusion.kind == "self_exclusion"


@pytest.mark.django_db
def test_reality_check_figures(clock, table):
    player = make_player(balance=100_000)
    reality_check_set(player=player, interval_minutes=30, actor=caller(player))
    session_start(player=player)
    set_next_round(player, tie=False, player_wins=False)
    place(player, table, main=1000)
    set_next_round(player, tie=False, player_wins=True)
    place(player, table, main=2000)
    clock.advance(minutes=45)
    figures = session_figures(player=player)
    assert figures.rounds == 2 and figures.staked == 3000 and figures.net == 1000
    assert 2700 <= figures.elapsed_s <= 2710
    assert figures.next_reality_check_at is not None


@pytest.mark.django_db(transaction=True)
def test_concurrent_rounds_never_overshoot_a_wager_limit():
    table = TableFactory()
    player = make_player(balance=1_000_000, username="limited")
    limit_set(player=player, kind="wager", period="day", amount=10_000, actor=caller(player))
    barrier = threading.Barrier(16)

    def attempt(i):
        try:
            barrier.wait(timeout=20) if i < 16 else None
            place(player, table, main=1000)
            return "ok"
        except LimitExceeded:
            return "limit"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(attempt, range(30)))
    assert results.count("ok") == 10 and results.count("limit") == 20, results
    assert Round.objects.filter(player=player).count() == 10
