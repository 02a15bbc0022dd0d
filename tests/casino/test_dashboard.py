"""The operators' overview (/admin/, casino/backoffice.py and casino/reports.py): its figures against
hand-made data, what each role sees, and a page whose number of queries does not grow with the rounds."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.services import partner_create, player_create, roles_sync
from casino.models import RoundStatus, WebhookDelivery
from casino.reports import (
    dashboard_exclusions,
    dashboard_operations,
    dashboard_play,
    dashboard_verification,
    dashboard_webhooks,
)
from core.actors import Actor
from ledger.verification import ledger_verify
from protection.services import exclusion_start
from tests.casino.test_reports import add_round
from tests.factories import StaffFactory, TableFactory, make_player

pytestmark = pytest.mark.django_db
WIN = {"main": 1000, "raise": 0, "tie": 0, "bonus": 0}
LOSE = {"main": -1000, "raise": 0, "tie": 0, "bonus": 0}


@pytest.fixture
def now(monkeypatch):
    moment = timezone.now().astimezone(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    monkeypatch.setattr("core.clock.now", lambda: moment)
    return moment


@pytest.fixture
def month(now):
    """Rounds today, 10 and 40 days ago, a round waiting for a decision, two waiting for settlement."""
    eur = TableFactory(name="Classic EUR")
    usd = TableFactory(name="Classic USD", currency="USD")
    alice, carol = make_player(username="alice"), make_player(username="carol", currency="USD")
    add_round(alice, eur, main=1000, nets=LOSE, resolved_at=now - timedelta(hours=3))
    add_round(alice, eur, main=1000, tie=100, nets={**WIN, "tie": -100}, resolved_at=now - timedelta(hours=2))
    add_round(alice, eur, main=1000, nets=LOSE, resolved_at=now - timedelta(days=10))
    add_round(alice, eur, main=5000, nets=LOSE, resolved_at=now - timedelta(days=40))  # before the 30 days
    add_round(carol, usd, main=2000, nets={**LOSE, "main": -2000}, resolved_at=now - timedelta(days=1))
    add_round(carol, usd, main=700, nets={}, status=RoundStatus.AWAITING_DECISION)
    return eur, usd


def test_play_today_and_the_last_30_days_per_currency_and_table(month, now):
    play = dashboard_play(now=now)
    assert play.today["EUR"].rounds == 2 and play.today["EUR"].staked == 2100 and play.today["EUR"].ggr == 100
    assert "USD" not in play.today
    assert play.period["EUR"].rounds == 3 and play.period["EUR"].ggr == 1100  # not the round 40 days ago
    assert play.period["USD"].ggr == 2000 and len(play.days) == 30 and play.days[-1] == now.date()
    assert play.per_day["EUR"][now.date()].rounds == 2
    (eur,) = [t for t in play.tables if t.currency == "EUR"]
    assert eur.today.rounds == 2 and eur.totals.rounds == 3 and eur.main.rounds == 3
    assert eur.main.rtp == pytest.approx(2 / 3) and eur.main.low < eur.main.rtp < eur.main.high
    assert eur.exact_war == pytest.approx(0.971229, abs=1e-6) and eur.exact_surrender == pytest.approx(
        0.963023, abs=1e-6
    )
    assert eur.tie.rounds == 1 and eur.tie.rtp == 0.0


def test_rounds_waiting_for_a_decision_and_for_settlement_and_the_settlement_lag(month, now):
    player = make_player(username="dora")
    table = TableFactory(name="Lag table")
    add_round(player, table, main=100, nets=LOSE, status=RoundStatus.RESOLVED, resolved_at=now - timedelta(minutes=2))
    settled = add_round(player, table, main=100, nets=LOSE, resolved_at=now - timedelta(minutes=5))
    type(settled).objects.filter(pk=settled.pk).update(settled_at=now - timedelta(minutes=5) + timedelta(seconds=2))
    type(settled).objects.filter(status=RoundStatus.AWAITING_DECISION).update(
        decision_deadline=now - timedelta(seconds=1)
    )
    ops = dashboard_operations(now=now)
    assert (ops.awaiting, ops.awaiting_overdue) == (1, 1)
    assert ops.backlog == 1 and ops.oldest_unsettled == now - timedelta(minutes=2)
    assert ops.settled_recently == 1 and ops.lag_average_s == pytest.approx(2.0) and ops.lag_max_s == pytest.approx(2.0)


def test_failing_webhooks_verification_and_protected_players(month, now):
    partner, _ = partner_create(name="Slow Partner")
    theirs = player_create(username="pat", password=None, partner=partner, external_id="p1")
    table = TableFactory(name="Hooks")
    rounds = [add_round(theirs, table, main=100, nets=LOSE, resolved_at=now) for _ in range(3)]
    for round_, attempts, delivered in ((rounds[0], 3, None), (rounds[1], 0, None), (rounds[2], 1, now)):
        WebhookDelivery.objects.create(
            partner=partner, round=round_, payload={}, next_attempt_at=now, attempts=attempts, delivered_at=delivered
        )
    hooks = dashboard_webhooks()
    assert (hooks.undelivered, hooks.failing, hooks.failing_by_partner) == (2, 1, [("Slow Partner", 1)])
    assert dashboard_verification(now=now).latest is None
    run = ledger_verify(triggered_by="nightly")
    assert dashboard_verification(now=now).latest == run and run.ok
    exclusion_start(player=theirs, kind="timeout", days=2, actor=Actor.player(theirs))
    exclusion_start(player=theirs, kind="timeout", days=3, actor=Actor.player(theirs))  # the same player again
    assert dashboard_exclusions(now=now + timedelta(minutes=1)) == {"timeout": 1, "self_exclusion": 0}


def staff(client, role):
    roles_sync()
    user = StaffFactory()
    if role:
        user.groups.add(Group.objects.get(name=role))
    client.force_login(user)
    return user


# What the overview shows to each role: (text, operator, auditor, support).
SECTIONS = [
    ("Awaiting a decision", True, True, True),
    ("Settlement", True, True, True),
    ("Classic EUR", True, True, True),  # the tables, with their rounds
    ("Players protected now", True, True, True),
    ("GGR", True, True, False),
    ("staked", True, True, False),
    ("main bet, observed", True, True, False),
    ("Partner webhooks failing", True, True, False),
    ("Ledger verification", True, True, False),
    ("All reports", True, True, False),
]


@pytest.mark.parametrize(("role", "column"), [(OPERATOR, 1), (AUDITOR, 2), (SUPPORT, 3)])
def test_each_role_sees_its_part_of_the_overview(client, month, role, column):
    staff(client, role)
    page = client.get("/admin/").content.decode()
    for section in SECTIONS:
        assert (section[0] in page) is section[column], (role, section[0])
    if role == SUPPORT:
        assert "€" not in page and "$" not in page.replace("$ bin", "")  # no money at all


def test_a_staff_member_without_a_role_sees_no_figures_and_nobody_else_gets_in(client, month):
    staff(client, None)
    page = client.get("/admin/").content.decode()
    assert "Your role shows no figures here" in page and "Awaiting a decision" not in page
    client.logout()
    response = client.get("/admin/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")
    client.force_login(make_player(username="player").user)
    assert client.get("/admin/").status_code == 302


def test_the_overview_costs_the_same_queries_with_ten_times_the_rounds(client, month, now, monkeypatch):
    staff(client, OPERATOR)

    def queries() -> int:
        client.get("/admin/")  # sums up the hours finished since the last read, once
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/admin/").status_code == 200
        return len(captured)

    before = queries()
    player = make_player(username="busy")
    for n in range(60):  # ten times the rounds, over the next two days
        add_round(player, month[0], main=1000, nets=LOSE if n % 2 else WIN, resolved_at=now + timedelta(minutes=48 * n))
    monkeypatch.setattr("core.clock.now", lambda: now + timedelta(days=2))
    assert queries() == before
