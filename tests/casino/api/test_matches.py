"""The War match endpoints: presets, dealing, reading, a person's decisions, who sees what."""

import pytest

from tests.factories import make_player

pytestmark = pytest.mark.django_db
SEED = "cd" * 32


def test_presets_are_public(client):
    presets = client.get("/api/v1/war/presets/").json()
    assert {p["name"] for p in presets} >= {"classic", "standard", "steal", "pyanitsa", "tod_und_leben", "peace"}


def test_anyone_deals_a_match_and_gets_the_whole_event_log(client):
    response = client.post(
        "/api/v1/matches/", {"preset": "classic", "server_seed": SEED}, content_type="application/json"
    )
    assert response.status_code == 201
    match = response.json()
    assert match["status"] == "finished" and match["fairness"]["server_seed"] == SEED
    assert len(match["deal"]) == 2 and sum(map(len, match["deal"])) == 52
    assert match["result"]["battles"] == match["page"]["battles"] > len(match["battles"])  # in pages
    assert match["events"][0]["type"] == "battle"
    assert client.get(f"/api/v1/matches/{match['id']}/").json() == match
    first = client.get(f"/api/v1/matches/{match['id']}/?limit=2000").json()
    rest = client.get(first["page"]["next"].removeprefix("http://testserver")).json()
    assert len(first["battles"] + rest["battles"]) == match["result"]["battles"] and rest["page"]["next"] is None


def test_an_invalid_combination_is_a_400_problem_that_says_why(client):
    response = client.post(
        "/api/v1/matches/", {"preset": "peace", "options": {"down": 1}}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "invalid_input" and "peace" in response.json()["detail"].lower()


def test_a_players_match_is_theirs_alone_and_hides_the_seed_and_deal_while_they_decide(client):
    from casino.engine.war import StealView
    from tests.casino.services.test_matches import steal_seed

    alice, bob = make_player(), make_player()
    client.force_login(alice.user)
    created = client.post(
        "/api/v1/matches/",
        {"preset": "steal", "server_seed": steal_seed(StealView), "human_seat": 0},
        content_type="application/json",
    ).json()
    assert created["status"] == "awaiting_decision" and created["pending"]["kind"] == "steal"
    assert created["fairness"]["server_seed"] is None and created["deal"] is None
    bad = client.post(f"/api/v1/matches/{created['id']}/decision/", {"top": 0}, content_type="application/json")
    assert bad.status_code == 400
    decided = client.post(
        f"/api/v1/matches/{created['id']}/decision/",
        {"steal": created["pending"]["targets"][0]},
        content_type="application/json",
    )
    assert decided.status_code == 200 and any(e["type"] == "steal" for e in decided.json()["events"])

    client.force_login(bob.user)
    assert client.get(f"/api/v1/matches/{created['id']}/").status_code == 404
    assert (
        client.post(
            f"/api/v1/matches/{created['id']}/decision/", {"steal": None}, content_type="application/json"
        ).status_code
        == 404
    )
    client.logout()
    assert client.get(f"/api/v1/matches/{created['id']}/").status_code == 404
    assert client.get("/api/v1/matches/not-a-uuid/").status_code == 404


def test_a_finished_match_answers_a_decision_with_409(client):
    match = client.post("/api/v1/matches/", {"preset": "classic"}, content_type="application/json").json()
    response = client.post(f"/api/v1/matches/{match['id']}/decision/", {"steal": None}, content_type="application/json")
    assert response.status_code == 409 and response.json()["code"] == "match_not_awaiting_decision"
