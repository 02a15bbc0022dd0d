import pytest

from tests.casino.helpers import set_next_round

pytestmark = pytest.mark.django_db


def test_players_read_and_set_limits_exclusions_and_reality_checks(player_client, player, table):
    from protection.services import session_start

    session_start(player=player)
    assert player_client.get("/api/v1/protection/").json()["limits"] == []
    response = player_client.put(
        "/api/v1/protection/limits/",
        {"kind": "wager", "period": "day", "amount": 1500},
        content_type="application/json",
    )
    assert response.status_code == 200
    (limit,) = response.json()["limits"]
    assert limit == {"kind": "wager", "period": "day", "amount": 1500, "used": 0, "pending": None}
    set_next_round(player, tie=False)
    assert (
        player_client.post(
            "/api/v1/rounds/",
            {"table": str(table.pk), "main_bet": 1000},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="1",
        ).status_code
        == 201
    )
    refused = player_client.post(
        "/api/v1/rounds/",
        {"table": str(table.pk), "main_bet": 1000},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="2",
    )
    assert refused.status_code == 422 and refused.json()["code"] == "limit_exceeded"
    bad = player_client.put(
        "/api/v1/protection/limits/", {"kind": "wager", "period": "year", "amount": 1}, content_type="application/json"
    )
    assert bad.status_code == 400
    reality = player_client.put(
        "/api/v1/protection/reality-check/", {"interval_minutes": 20}, content_type="application/json"
    )
    assert reality.json()["reality_check"] == {"interval_minutes": 20}
    assert player_client.get("/api/v1/protection/session/").json()["rounds"] >= 1
    excluded = player_client.post(
        "/api/v1/protection/exclusions/", {"kind": "timeout", "days": 1}, content_type="application/json"
    )
    assert excluded.status_code == 201 and excluded.json()["kind"] == "timeout"
    assert player_client.get("/api/v1/wallet/").status_code == 401  # signed out: the token is gone


def test_the_token_sign_in_starts_a_session(client, player):
    player.user.set_password("a-long-pass-phrase")
    player.user.save()
    token = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "a-long-pass-phrase"}, content_type="application/json"
    ).json()["token"]
    figures = client.get("/api/v1/protection/session/", HTTP_AUTHORIZATION=f"Token {token}").json()
    assert figures["rounds"] == 0 and figures["elapsed_s"] < 5


def test_partners_set_limits_for_their_players(client):
    from accounts.services import partner_create
    from tests.casino.helpers import PartnerClient

    partner, secret = partner_create(name="Limits Casino")
    api = PartnerClient(client, partner, secret)
    api.put("/api/v1/partner/players/p1/", {"currency": "EUR"})
    response = api.put(
        "/api/v1/partner/players/p1/protection/limits/", {"kind": "deposit", "period": "week", "amount": 5000}
    )
    assert response.status_code == 200
    ok = api.post(
        "/api/v1/partner/players/p1/transfers/",
        {"direction": "in", "amount": 4000, "reference": "a"},
        HTTP_IDEMPOTENCY_KEY="a",
    )
    over = api.post(
        "/api/v1/partner/players/p1/transfers/",
        {"direction": "in", "amount": 1001, "reference": "b"},
        HTTP_IDEMPOTENCY_KEY="b",
    )
    assert ok.status_code == 201 and over.status_code == 422 and over.json()["code"] == "limit_exceeded"


def test_operators_see_limits_and_exclusions(admin_client, player_client):
    player_client.put(
        "/api/v1/protection/limits/",
        {"kind": "loss", "period": "month", "amount": 9000},
        content_type="application/json",
    )
    page = admin_client.get("/admin/protection/playerlimit/").content.decode()
    assert "alice" in page and "€90.00" in page  # money in its currency
    assert admin_client.get("/admin/protection/playerlimit/add/").status_code == 403
    assert "limit.set" in admin_client.get("/admin/core/auditevent/").content.decode()


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("/api/v1/protection/exclusions/", {"kind": "nap"}, "invalid_input"),
        ("/api/v1/protection/exclusions/", {"kind": "timeout", "days": "2"}, "invalid_input"),
        ("/api/v1/protection/exclusions/", {"kind": "self_exclusion", "months": 6.0}, "invalid_input"),
        ("/api/v1/protection/limits/", {"kind": "wager", "period": "day"}, "invalid_amount"),
        ("/api/v1/protection/limits/", {"kind": "wager", "period": "day", "amount": "100"}, "invalid_amount"),
        ("/api/v1/protection/limits/", {"kind": "wager", "period": "year", "amount": 100}, "invalid_input"),
        ("/api/v1/protection/reality-check/", {"interval_minutes": True}, "invalid_input"),
        ("/api/v1/protection/reality-check/", {"interval_minutes": 5}, "invalid_input"),
    ],
)
def test_bad_protection_requests_are_400_and_change_nothing(player_client, player, path, body, code):
    method = player_client.post if path.endswith("exclusions/") else player_client.put
    response = method(path, body, content_type="application/json")
    assert response.status_code == 400 and response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == code
    assert player_client.get("/api/v1/protection/").json()["limits"] == []
    assert player_client.get("/api/v1/protection/").json()["exclusion"] is None


def test_a_limit_without_an_amount_is_refused_and_null_removes_it(player_client):
    put = lambda body: player_client.put("/api/v1/protection/limits/", body, content_type="application/json")  # noqa: E731
    assert put({"kind": "loss", "period": "week", "amount": 5000}).status_code == 200
    assert put({"kind": "loss", "period": "week"}).status_code == 400  # was 200, removing the limit
    (limit,) = put({"kind": "loss", "period": "week", "amount": None}).json()["limits"]
    assert limit["amount"] == 5000 and limit["pending"]["amount"] is None  # removed after 24 hours
