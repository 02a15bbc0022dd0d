"""What one unauthenticated War match costs is bounded (issue #28, item 3): no game of more than
MAX_BATTLES_LIMIT battles, answers of one page of battles and their events, and budgets of battles
replayed per caller and for all anonymous callers together."""

import json
import time

import pytest
from django.test import Client

from casino.models import Match
from casino.selectors import MATCH_PAGE_BATTLES, MATCH_PAGE_MAX
from casino.services.matches import MAX_BATTLES_LIMIT, match_replay
from tests.casino.api.test_player_api import assert_problem

pytestmark = pytest.mark.django_db
# A classic deal that only ends, as a cycle, after 210,628 battles (about 10 s of CPU and 100 MB
# of answer if it were played out).
ENDLESS_CLASSIC = "8e02a02a9e65049435aea402e0783a808343da5e7c6f72f846c2c57e0b6aec83"
SEED = "ab" * 32


def deal(client, body, **headers):
    return client.post("/api/v1/matches/", body, content_type="application/json", **headers)


def test_the_issues_twenty_thousand_battles_are_refused_at_once(client):
    started = time.perf_counter()
    response = deal(client, {"preset": "one_down", "options": {"max_battles": 20_000}})
    assert_problem(response, 400, "invalid_input")
    assert "max_battles" in response.json()["detail"] and "5,000" in response.json()["detail"]
    assert time.perf_counter() - started < 0.5 and not Match.objects.exists()


def test_a_deal_that_runs_past_the_bound_is_refused_not_played_out(client):
    started = time.perf_counter()
    response = deal(client, {"preset": "classic", "server_seed": ENDLESS_CLASSIC})
    assert_problem(response, 400, "invalid_input")
    assert "5,000 battles" in response.json()["detail"]
    assert time.perf_counter() - started < 5  # 5,000 battles, not 210,628
    assert not Match.objects.exists()
    # the same deal to a limit plays
    limited = deal(client, {"preset": "classic", "server_seed": ENDLESS_CLASSIC, "options": {"max_battles": 5_000}})
    assert limited.status_code == 201 and limited.json()["result"]["reason"] == "limit_draw"


def test_a_long_match_comes_in_pages_that_add_up_to_the_whole_replay(client):
    created = deal(
        client, {"preset": "one_down", "server_seed": SEED, "options": {"max_battles": MAX_BATTLES_LIMIT, "seats": 4}}
    )
    assert created.status_code == 201
    first = created.json()
    assert len(created.content) < 800_000  # the issue's answer was 6.7 MB
    assert first["page"]["battles"] == MAX_BATTLES_LIMIT and first["page"]["offset"] == 0
    assert len(first["battles"]) == MATCH_PAGE_BATTLES and first["page"]["next"].endswith(
        f"/api/v1/matches/{first['id']}/?offset={MATCH_PAGE_BATTLES}&limit={MATCH_PAGE_BATTLES}"
    )
    battles, events, page = list(first["battles"]), list(first["events"]), first["page"]
    while page["next"]:
        answer = client.get(page["next"].replace("http://testserver", ""))
        assert answer.status_code == 200 and len(answer.content) < 800_000
        battles += answer.json()["battles"]
        events += answer.json()["events"]
        page = answer.json()["page"]
    replay = match_replay(Match.objects.get(pk=first["id"]))
    assert battles == [b.as_json() for b in replay.battles]
    assert events == [e.as_json() for e in replay.events]  # every event once, in order
    big = client.get(f"/api/v1/matches/{first['id']}/?offset=0&limit={MATCH_PAGE_MAX}")
    assert len(big.json()["battles"]) == MATCH_PAGE_MAX


@pytest.mark.parametrize("query", ["limit=0", f"limit={MATCH_PAGE_MAX + 1}", "offset=-1", "offset=x", "limit=1.5"])
def test_a_page_out_of_range_is_invalid(client, query):
    match_id = deal(client, {"preset": "classic", "server_seed": SEED}).json()["id"]
    assert_problem(client.get(f"/api/v1/matches/{match_id}/?{query}"), 400, "invalid_input")


def test_battles_replayed_are_charged_per_address(client, throttle_rates):
    throttle_rates.update(match_battles="6000/min")
    body = {"preset": "one_down", "server_seed": SEED, "options": {"max_battles": 5_000, "seats": 3}}
    assert deal(client, body).status_code == 201  # 5,000 battles of a budget of 6,000
    assert deal(client, body).status_code == 201  # 1 battle left: let in, and it overdraws the budget
    refused = deal(client, body)
    assert_problem(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 30  # 4,000 battles overdrawn at 100 a second
    assert deal(client, body, REMOTE_ADDR="198.51.100.9").status_code == 201  # another caller


def test_deals_refused_as_too_long_are_charged_too(client, throttle_rates):
    throttle_rates.update(match_battles="6000/min")
    body = {"preset": "classic", "server_seed": ENDLESS_CLASSIC}
    assert deal(client, body).status_code == 400
    assert deal(client, body).status_code == 400
    assert deal(client, body).status_code == 429


def test_anonymous_callers_share_one_budget_whatever_their_addresses(throttle_rates, player_client):
    throttle_rates.update(match_battles_anonymous="8000/min")
    body = {"preset": "one_down", "server_seed": SEED, "options": {"max_battles": 5_000, "seats": 3}}
    anonymous = Client()
    statuses = [deal(anonymous, body, REMOTE_ADDR=f"198.51.100.{n}").status_code for n in range(1, 5)]
    assert statuses == [201, 201, 429, 429]
    assert deal(player_client, body).status_code == 201  # a signed-in player has a budget of its own


def test_the_schema_describes_the_pages(client):
    schema = json.loads(client.get("/api/schema/?format=json").content)
    get = schema["paths"]["/api/v1/matches/{match_id}/"]["get"]
    assert {p["name"] for p in get["parameters"]} >= {"offset", "limit"}
    assert "page" in schema["components"]["schemas"]["Match"]["properties"]


def test_a_seed_the_service_draws_whose_deal_runs_past_the_bound_is_drawn_again(client, monkeypatch, throttle_rates):
    """About 2 in 100 standard deals run past 5,000 battles: the War page's default game must not
    fail for them. A drawn seed is drawn again (a public rule); a seed the caller gives is not."""
    from casino.services import matches

    seeds = iter([ENDLESS_CLASSIC, SEED])
    monkeypatch.setattr(matches.secrets, "token_hex", lambda n: next(seeds))
    throttle_rates.update(match_battles="7000/min")
    created = deal(client, {"preset": "classic"})
    assert created.status_code == 201 and created.json()["fairness"]["server_seed"] == SEED
    assert deal(client, {"preset": "classic", "server_seed": SEED}).status_code == 429  # 5,000 + 2,336 charged
