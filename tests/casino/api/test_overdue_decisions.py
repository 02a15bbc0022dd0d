"""A round past its decision deadline is decided when anyone next reads or acts on it (the player,
the player's partner casino), by the worker when the window of its deadline closes, not only by
beat (issue #16 item 6; the web pages: tests/web/test_views.py)."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Player
from accounts.services import partner_create
from casino.models import Round, RoundStatus
from casino.services.rounds import rounds_decide_overdue_for_player
from casino.tasks import decide_due_task, decide_timed_out_task, decide_when_due_task
from tests.casino.helpers import PartnerClient, set_next_round

pytestmark = pytest.mark.django_db


def place_tie(client, player, table, key):
    set_next_round(player, tie=True)
    response = client.post(
        "/api/v1/rounds/",
        {"table": str(table.pk), "main_bet": 1000},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
    )
    assert response.json()["status"] == "awaiting_decision"
    return response.json()["id"]


def overdue(round_id):
    Round.objects.filter(pk=round_id).update(decision_deadline=timezone.now() - timedelta(seconds=1))


def test_reading_a_round_past_its_deadline_takes_the_house_rule_first(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    assert player_client.get(f"/api/v1/rounds/{round_id}/").json()["status"] == "awaiting_decision"  # not due yet
    overdue(round_id)
    body = player_client.get(f"/api/v1/rounds/{round_id}/").json()
    assert body["status"] in ("resolved", "settled") and body["decision"] == "war"  # the table's house rule
    stored = Round.objects.get(pk=round_id)
    assert stored.decision_timed_out and stored.decided_by_type == "system"


def test_listing_rounds_decides_overdue_ones(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    overdue(round_id)
    listed = player_client.get("/api/v1/rounds/").json()["results"]
    assert listed[0]["id"] == round_id and listed[0]["status"] != "awaiting_decision"


def test_a_decision_after_the_deadline_comes_too_late(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    overdue(round_id)
    response = player_client.post(
        f"/api/v1/rounds/{round_id}/decision/",
        {"action": "surrender"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="late",
    )
    assert response.status_code == 409 and response.json()["code"] == "round_not_awaiting_decision"
    assert Round.objects.get(pk=round_id).decision == "war"  # the house's decision stands


def test_nothing_overdue_costs_one_read(player, table, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert rounds_decide_overdue_for_player(player=player) == 0


def test_the_worker_takes_overdue_decisions_when_their_window_closes(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    overdue(round_id)
    assert decide_due_task.apply(args=[time.time() - 0.01]).get() == 1
    decided = Round.objects.get(pk=round_id)
    assert decided.status == RoundStatus.RESOLVED and decided.decision_timed_out


def test_a_deadline_queued_before_windows_is_still_kept(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    overdue(round_id)
    assert decide_when_due_task.apply(args=[str(round_id)]).get() == 1  # a message of the old, per-tie task
    assert Round.objects.get(pk=round_id).decision_timed_out


def test_the_sweeper_takes_overdue_decisions_when_nobody_reads(player_client, player, table):
    round_id = place_tie(player_client, player, table, "k1")
    assert decide_timed_out_task.apply().get() == 0  # not due yet
    overdue(round_id)
    assert decide_timed_out_task.apply().get() == 1  # beat's job
    assert Round.objects.get(pk=round_id).decision_timed_out


def test_the_partner_reading_its_players_rounds_takes_overdue_decisions(client, table):
    partner, secret = partner_create(name="Overdue Casino")
    api = PartnerClient(client, partner, secret)
    base = "/api/v1/partner/players/ext-late"
    api.put(f"{base}/", {"currency": "EUR"})
    api.post(
        f"{base}/transfers/", {"direction": "in", "amount": 50_000, "reference": "in-1"}, HTTP_IDEMPOTENCY_KEY="fund"
    )
    player = Player.objects.get(partner=partner, external_id="ext-late")
    set_next_round(player, tie=True)
    placed = api.post(f"{base}/rounds/", {"table": str(table.pk), "main_bet": 1000}, HTTP_IDEMPOTENCY_KEY="r1")
    assert placed.json()["status"] == "awaiting_decision"
    overdue(placed.json()["id"])
    body = api.get(f"{base}/rounds/{placed.json()['id']}/").json()
    assert body["status"] != "awaiting_decision" and body["decision"] == "war"
    assert Round.objects.get(pk=placed.json()["id"]).decided_by_type == "system"
