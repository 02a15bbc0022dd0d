"""Game launch (API.md "Game launch") without a browser: the partner's calls, the one-time URL,
what a game session's credential may do, how a session ends, who may frame its pages, and
`partner_create --origin`. The whole flow in Chromium is tests/web/test_game_launch.py."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.game_sessions import IDLE_LIMIT, game_sessions_end_idle
from accounts.models import GameSession, Partner
from accounts.services import partner_create
from casino.models import Round, WebhookDelivery
from core.audit import AuditEvent
from tests.casino.helpers import PartnerClient, set_next_round

pytestmark = pytest.mark.django_db
BASE = "/api/v1/partner/players"
ORIGIN = "https://casino.example"


@pytest.fixture
def partner_pair(client, db):
    partner, secret = partner_create(name="Framing Casino", origins=[ORIGIN, "https://www.casino.example:8443"])
    api = PartnerClient(client, partner, secret)
    assert api.put(f"{BASE}/ext-1/", {"currency": "EUR"}).status_code == 201
    assert api.put(f"{BASE}/ext-2/", {"currency": "EUR"}).status_code == 201
    api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "in", "amount": 50_000, "reference": "dep-1"},
        HTTP_IDEMPOTENCY_KEY="fund-1",
    )
    return partner, api


def launch(api, player="ext-1", **body):
    answer = api.post(f"{BASE}/{player}/sessions/", body)
    assert answer.status_code == 201, answer.content
    return answer.json()


def path_of(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def credential_of(page) -> str:
    match = re.search(r'<script id="game-credential" type="application/json">"([^"]+)"</script>', page.content.decode())
    assert match, "the launch page carries its credential"
    return match[1]


def opened(client, launched) -> str:
    page = client.get(path_of(launched["url"]))
    assert page.status_code == 200
    return credential_of(page)


def as_game(token: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"GameSession {token}"}


def test_a_launch_answers_a_session_a_one_time_url_and_its_expiry(partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk, language="pt-BR", lobby_url="https://casino.example/lobby")
    assert set(launched) == {"session", "url", "expires_at"}
    assert launched["url"].startswith("http://testserver/play/launch/")
    expires = timezone.datetime.fromisoformat(launched["expires_at"].replace("Z", "+00:00"))
    assert timedelta(seconds=55) < expires - timezone.now() <= timedelta(seconds=60)
    session = GameSession.objects.get(pk=launched["session"])
    assert session.table_id == table.pk and session.language == "pt-br" and not session.demo
    assert session.launch_digest not in launched["url"]  # only the token's digest is kept


def test_the_url_opens_once_then_410_in_the_players_language_with_the_way_back(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk, language="es", lobby_url="https://casino.example/lobby")
    first = client.get(path_of(launched["url"]))
    assert first.status_code == 200 and 'id="felt"' in first.content.decode()
    assert first["Cache-Control"] == "no-store"
    again = client.get(path_of(launched["url"]))
    assert again.status_code == 410
    text = again.content.decode()
    assert 'id="felt"' not in text and "game-credential" not in text
    assert 'href="https://casino.example/lobby"' in text and 'lang="es"' in text
    assert "Este enlace de juego ha caducado o ya se usó" in text


def test_a_url_not_opened_within_60_seconds_is_gone(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk)
    GameSession.objects.filter(pk=launched["session"]).update(launch_expires_at=timezone.now() - timedelta(seconds=1))
    page = client.get(path_of(launched["url"]))
    assert page.status_code == 410 and 'id="felt"' not in page.content.decode()
    assert client.get("/play/launch/not-a-token/").status_code == 410


def test_the_credential_plays_as_its_player_only(client, partner_pair, table):
    _, api = partner_pair
    other = api.post(f"{BASE}/ext-2/rounds/", {"table": table.pk, "main_bet": 100}, HTTP_IDEMPOTENCY_KEY="o1")
    assert other.status_code == 422  # ext-2 has no money: no round of its own, but it exists
    api.post(
        f"{BASE}/ext-2/transfers/",
        {"direction": "in", "amount": 1_000, "reference": "dep-2"},
        HTTP_IDEMPOTENCY_KEY="fund-2",
    )
    others_round = api.post(
        f"{BASE}/ext-2/rounds/", {"table": table.pk, "main_bet": 100}, HTTP_IDEMPOTENCY_KEY="o2"
    ).json()["id"]
    token = opened(client, launch(api, table=table.pk))
    wallet = client.get("/api/v1/wallet/", **as_game(token))
    assert wallet.status_code == 200 and wallet.json()["balance"] == 50_000
    placed = client.post(
        "/api/v1/rounds/",
        {"table": table.pk, "main_bet": 1_000},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="g1",
        **as_game(token),
    )
    assert placed.status_code == 201  # no CSRF token: the credential is a header, not a cookie
    assert Round.objects.get(pk=placed.json()["id"]).player.external_id == "ext-1"
    assert client.get(f"/api/v1/rounds/{others_round}/", **as_game(token)).status_code == 404
    assert client.get("/api/v1/rounds/", **as_game(token)).json()["count"] == 1
    # No partner endpoint, whatever the path names.
    for method, path in (
        ("get", f"{BASE}/ext-1/wallet/"),
        ("get", f"{BASE}/ext-2/rounds/"),
        ("put", f"{BASE}/ext-3/"),
        ("post", f"{BASE}/ext-1/sessions/"),
        ("post", "/api/v1/partner/sessions/demo/"),
    ):
        body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
        answer = getattr(client, method)(path, **body, **as_game(token))
        assert answer.status_code == 401 and answer.json()["code"] == "signature_invalid", path
    # Nor anything a player's own endpoints are not (a War match is the website's, not the game's).
    assert client.get("/api/v1/matches/", **as_game(token)).status_code == 403
    assert client.get("/api/v1/wallet/", HTTP_AUTHORIZATION="GameSession " + "x" * 43).status_code == 401


def test_delete_ends_the_session_at_once(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk, lobby_url="https://casino.example/")
    token = opened(client, launched)
    path = f"{BASE}/ext-1/sessions/{launched['session']}/"
    assert api.request("DELETE", f"{BASE}/ext-2/sessions/{launched['session']}/").status_code == 404
    assert api.request("DELETE", path).status_code == 204
    refused = client.get("/api/v1/wallet/", **as_game(token))
    assert refused.status_code == 401 and refused.json()["code"] == "game_session_ended"
    page = client.get(f"/play/{launched['session']}/tables/{table.pk}/")
    assert 'data-game-ended="true"' in page.content.decode() and 'id="felt"' not in page.content.decode()
    state = client.get(f"/play/{launched['session']}/state/", **as_game(token)).json()
    assert state["active"] is False and state["reason"] == "deleted"
    assert api.request("DELETE", path).status_code == 204  # again: still ended
    assert AuditEvent.objects.filter(action="game_session.ended", object_id=launched["session"]).count() == 1


def test_thirty_idle_minutes_end_the_session(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk)
    token = opened(client, launched)
    assert client.get("/api/v1/wallet/", **as_game(token)).status_code == 200
    asking = client.get(f"/play/{launched['session']}/state/", **as_game(token))
    assert asking.json() == {"active": True}
    GameSession.objects.filter(pk=launched["session"]).update(
        last_seen_at=timezone.now() - IDLE_LIMIT - timedelta(seconds=1)
    )
    assert client.get("/api/v1/wallet/", **as_game(token)).json()["code"] == "game_session_ended"
    session = GameSession.objects.get(pk=launched["session"])
    assert session.ended_reason == "idle"
    # An idle session nobody asked about is recorded too.
    second = launch(api, table=table.pk)
    opened(client, second)
    GameSession.objects.filter(pk=second["session"]).update(last_seen_at=timezone.now() - IDLE_LIMIT * 2)
    assert game_sessions_end_idle() == 1
    assert GameSession.objects.get(pk=second["session"]).ended_reason == "idle"


def test_an_exclusion_ends_the_session(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk)
    token = opened(client, launched)
    excluded = client.post(
        "/api/v1/protection/exclusions/",
        {"kind": "timeout", "days": 1},
        content_type="application/json",
        **as_game(token),
    )
    assert excluded.status_code == 201, excluded.content
    assert GameSession.objects.get(pk=launched["session"]).ended_reason == "excluded"
    assert client.get("/api/v1/wallet/", **as_game(token)).status_code == 401


def test_the_partners_limits_and_the_reality_check_apply_to_the_session(client, partner_pair, table):
    _, api = partner_pair
    limited = api.request(
        "PUT", f"{BASE}/ext-1/protection/limits/", {"kind": "wager", "period": "day", "amount": 1_000}
    )
    assert limited.status_code == 200
    token = opened(client, launch(api, table=table.pk))
    first = client.post(
        "/api/v1/rounds/",
        {"table": table.pk, "main_bet": 1_000},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="l1",
        **as_game(token),
    )
    assert first.status_code == 201
    refused = client.post(
        "/api/v1/rounds/",
        {"table": table.pk, "main_bet": 100},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="l2",
        **as_game(token),
    )
    assert refused.status_code == 422 and refused.json()["code"] == "limit_exceeded"
    figures = client.get("/api/v1/protection/session/", **as_game(token)).json()
    assert figures["rounds"] == 1  # the reality check counts from the launch, as from a sign-in


def test_game_pages_may_be_framed_by_the_partners_origins_only(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk)
    page = client.get(path_of(launched["url"]))
    policy = page["Content-Security-Policy"]
    assert "frame-ancestors https://casino.example https://www.casino.example:8443" in policy
    assert "X-Frame-Options" not in page
    for shell in (
        f"/play/{launched['session']}/",
        f"/play/{launched['session']}/history/",
        f"/play/{launched['session']}/tables/{table.pk}/",
    ):
        answer = client.get(shell)
        assert answer.status_code == 200
        assert (
            "frame-ancestors https://casino.example https://www.casino.example:8443"
            in answer["Content-Security-Policy"]
        )
    for page_path in ("/", f"/tables/{table.pk}/", "/signin/", "/api/v1/tables/"):
        answer = client.get(page_path)
        assert "frame-ancestors 'none'" in answer["Content-Security-Policy"], page_path
        assert answer["X-Frame-Options"] == "DENY"


def test_a_partner_without_origins_launches_an_unframeable_window(client, table):
    partner, secret = partner_create(name="Window Casino")
    api = PartnerClient(client, partner, secret)
    api.put(f"{BASE}/w-1/", {"currency": "EUR"})
    page = client.get(path_of(launch(api, "w-1", table=table.pk)["url"]))
    assert page.status_code == 200 and 'id="felt"' in page.content.decode()
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"] and page["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"table": 999_999}, "unknown_table"),
        ({"table": "x"}, "unknown_table"),
        ({"language": "fr"}, "invalid_input"),
        ({"language": "pt-br"}, "invalid_input"),
        ({"lobby_url": "http://casino.example/"}, "invalid_input"),
        ({"lobby_url": "javascript:alert(1)"}, "invalid_input"),
        ({"lobby_url": 7}, "invalid_input"),
    ],
)
def test_bad_launch_input_is_a_400_and_makes_nothing(partner_pair, body, code):
    _, api = partner_pair
    answer = api.post(f"{BASE}/ext-1/sessions/", body)
    assert answer.status_code == 400 and answer.json()["code"] == code
    assert not GameSession.objects.exists()


def test_a_table_of_another_currency_is_refused(partner_pair):
    from tests.factories import TableFactory

    _, api = partner_pair
    usd = TableFactory(currency="USD")
    answer = api.post(f"{BASE}/ext-1/sessions/", {"table": usd.pk})
    assert answer.status_code == 400 and answer.json()["code"] == "currency_mismatch"


def test_an_unknown_player_is_404(partner_pair):
    _, api = partner_pair
    assert api.post(f"{BASE}/nobody/sessions/", {}).status_code == 404


def test_a_demo_session_plays_money_of_its_own(client, partner_pair, table, django_capture_on_commit_callbacks):
    partner, api = partner_pair
    # A webhook URL that resolves nowhere: a demo round that made a delivery would show here.
    Partner.objects.filter(pk=partner.pk).update(webhook_url="https://hooks.casino.example/cw")
    answer = api.post("/api/v1/partner/sessions/demo/", {"table": table.pk, "language": "en"})
    assert answer.status_code == 201
    token = opened(client, answer.json())
    session = GameSession.objects.get(pk=answer.json()["session"])
    assert session.demo and session.player.partner_id is None and session.partner_id == partner.pk
    assert client.get("/api/v1/wallet/", **as_game(token)).json()["balance"] == 100_000
    set_next_round(session.player, tie=False)
    with django_capture_on_commit_callbacks(execute=True):
        placed = client.post(
            "/api/v1/rounds/",
            {"table": table.pk, "main_bet": 1_000},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="d1",
            **as_game(token),
        )
    assert placed.status_code == 201
    assert Round.objects.get(pk=placed.json()["id"]).player.partner_id is None
    assert not WebhookDelivery.objects.exists()  # the partner has a webhook URL: nothing for a demo round
    # The demo's player is nobody the partner can address.
    assert api.get(f"{BASE}/{session.player.external_id or 'demo'}/wallet/").status_code == 404


def test_partner_create_takes_origins(db):
    out = StringIO()
    call_command(
        "partner_create",
        "--name",
        "Origin Casino",
        "--origin",
        "https://A.example",
        "--origin",
        "https://b.example:443",
        "--origin",
        "https://c.example:8443",
        stdout=out,
    )
    assert set(json.loads(out.getvalue())) == {"key", "secret"}
    assert Partner.objects.get(name="Origin Casino").origins == [
        "https://a.example",
        "https://b.example",
        "https://c.example:8443",
    ]
    for bad in (
        "http://plain.example",
        "https://x.example/path",
        "https://*.example",
        "casino.example",
        "https://user@x.example",
    ):
        with pytest.raises(CommandError):
            call_command("partner_create", "--name", f"Bad {bad}", "--origin", bad, stdout=StringIO())


def test_http_origins_only_where_outbound_private_calls_are_allowed(db, outbound_private):
    partner, _ = partner_create(name="Local Casino", origins=["http://localhost:8001"])
    assert partner.origins == ["http://localhost:8001"]


def test_the_player_stops_its_own_session_from_the_page(client, partner_pair, table):
    _, api = partner_pair
    launched = launch(api, table=table.pk)
    token = opened(client, launched)
    end = f"/play/{launched['session']}/end/"
    assert client.post(end).status_code == 401  # nothing but the page's credential ends it
    assert client.post(end, HTTP_AUTHORIZATION="GameSession " + "y" * 43).status_code == 401
    stopped = client.post(end, **as_game(token))  # a header, not a cookie: no CSRF token needed
    assert stopped.status_code == 200 and stopped.json()["reason"] == "player"
    assert (
        "frame-ancestors https://casino.example https://www.casino.example:8443" in stopped["Content-Security-Policy"]
    )
    assert client.get("/api/v1/wallet/", **as_game(token)).json()["code"] == "game_session_ended"


def test_a_partner_switched_off_launches_nothing_more_and_its_sessions_end(client, partner_pair, table):
    partner, api = partner_pair
    token = opened(client, launch(api, table=table.pk))
    waiting = launch(api, table=table.pk)
    Partner.objects.filter(pk=partner.pk).update(is_active=False)
    assert client.get(path_of(waiting["url"])).status_code == 410
    assert client.get("/api/v1/wallet/", **as_game(token)).json()["code"] == "game_session_ended"
