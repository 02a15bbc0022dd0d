"""The accounts API (accounts/api.py): sign-up and tokens, and what unauthenticated callers may
send without ever making the server fail (docs/SECURITY.md's input rules)."""

import json

import pytest
from rest_framework.authtoken.models import Token

from accounts.models import Player, User

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def assert_problem(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["detail"] and body["type"]


def sign_up(client, **body):
    return client.post("/api/v1/players/", body, content_type="application/json")


# --- sign-up, tokens ----------------------------------------------------------------------------------


def test_sign_up_then_get_a_token(client):
    response = sign_up(client, username="bob", password="a-long-pass-phrase", email="b@example.com")
    assert response.status_code == 201 and response.json()["username"] == "bob" and response.json()["currency"] == "EUR"
    token = client.post(
        "/api/v1/auth/token/", {"username": "bob", "password": "a-long-pass-phrase"}, content_type="application/json"
    )
    assert token.status_code == 200 and set(token.json()) == {"token"}
    wallet = client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert wallet.json() == {"currency": "EUR", "balance": 0, "in_play": 0}


@pytest.mark.parametrize(
    "body",
    [
        {"username": "x", "password": "a-long-pass-phrase"},
        {"username": "carol", "password": "123"},
        {"username": "carol"},
        {"username": "carol", "password": "a-long-pass-phrase", "email": "nope"},
        {"username": "carol!", "password": "a-long-pass-phrase"},
        {"username": 12345, "password": "a-long-pass-phrase"},
        {"username": "carol", "password": ["a-long-pass-phrase"]},
    ],
)
def test_bad_sign_ups_are_400(client, body):
    assert_problem(client.post("/api/v1/players/", body, content_type="application/json"), 400, "invalid_input")
    assert not Player.objects.exists()


def test_a_taken_username_is_refused(client, player):
    assert_problem(sign_up(client, username="alice", password="a-long-pass-phrase"), 400, "username_taken")
    assert_problem(sign_up(client, username="ALICE", password="a-long-pass-phrase"), 400, "username_taken")


@pytest.mark.parametrize("look_alike", ["alic\u0435", "\u0430lice", "\uff41\uff4c\uff49\uff43\uff45", "AIice", "a1ice"])
def test_a_name_that_reads_like_one_taken_is_taken(client, player, look_alike):
    """Cyrillic letters, full-width letters, I or 1 for l: a person could not tell them apart."""
    assert_problem(sign_up(client, username=look_alike, password="a-long-pass-phrase"), 400, "username_taken")
    assert User.objects.count() == 1


def test_usernames_are_stored_normalised_and_sign_in_either_way(client):
    full_width = "\uff5a\uff4f\uff45\uff12"  # "zoe2"
    assert sign_up(client, username=full_width, password="a-long-pass-phrase").json()["username"] == "zoe2"
    for typed in ("zoe2", full_width):
        token = client.post("/api/v1/auth/token/", {"username": typed, "password": "a-long-pass-phrase"},
                            content_type="application/json")  # fmt: skip
        assert token.status_code == 200


@pytest.mark.parametrize("password", ["a-long-pass\x00phrase", "a-long-pass\x07phrase", "a-long-pass\x1bphrase"])
def test_a_control_character_in_a_password_is_refused_at_sign_up(client, password):
    assert_problem(sign_up(client, username="dora", password=password), 400, "invalid_input")
    assert not User.objects.filter(username="dora").exists()


def test_wrong_password_gets_no_token(client, player):
    response = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "wrong"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")


def test_staff_without_a_wallet_is_403(client, db):
    from tests.factories import StaffFactory

    staff = StaffFactory()
    token = Token.objects.create(user=staff)
    assert_problem(client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {token.key}"), 403, "not_a_player")


def test_a_nul_character_in_credentials_is_refused_not_a_server_error(client, player):
    response = client.post(
        "/api/v1/auth/token/", {"username": "ali\x00ce", "password": "x\x00"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")


def test_token_guessing_is_refused_after_ten_failures_even_with_the_right_password(client):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED
    from tests.factories import make_player

    player = make_player(username="ines")
    player.user.set_password("the-right-passphrase")
    player.user.save()
    for _ in range(SIGN_IN_FAILURES_ALLOWED):
        wrong = client.post(
            "/api/v1/auth/token/", {"username": "ines", "password": "guess"}, content_type="application/json"
        )
        assert wrong.status_code == 400
    refused = client.post(
        "/api/v1/auth/token/", {"username": "ines", "password": "the-right-passphrase"}, content_type="application/json"
    )
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"


# --- unauthenticated input never makes a 500 ---------------------------------------------------------


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize("path", ["/api/v1/players/", "/api/v1/auth/token/", "/api/v1/auth/session/", "/api/v1/rounds/"])
@pytest.mark.parametrize("depth", [33, 1_000, 50_000])
def test_json_nested_deeply_is_a_400(client, player_client, path, depth):
    caller = player_client if path == "/api/v1/rounds/" else client
    body = b'{"username": ' + nested(depth) + b', "password": "x", "table": "1", "main_bet": 100}'
    response = caller.post(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="deep")
    assert_problem(response, 400, "invalid_input")


@pytest.mark.parametrize("field", ["username", "password"])
@pytest.mark.parametrize("path", ["/api/v1/players/", "/api/v1/auth/token/"])
def test_a_lone_surrogate_is_a_400(client, path, field):
    body = {"username": "erin", "password": "a-long-pass-phrase", field: "ab\ud800cd"}
    response = client.post(path, json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM


def test_an_e_mail_longer_than_the_account_holds_is_a_400(client):
    email = "a" * 300 + "@example.com"  # 312 characters: a valid form, longer than 254
    assert_problem(sign_up(client, username="fred", password="a-long-pass-phrase", email=email), 400, "invalid_input")
    assert not User.objects.filter(username="fred").exists()


def test_the_web_sign_up_refuses_a_long_e_mail_too(client):
    email = "a" * 300 + "@example.com"
    response = client.post("/signup/", {"username": "gina", "email": email, "password": "a-long-pass-phrase"})
    assert response.status_code == 200 and not User.objects.filter(username="gina").exists()


# --- JSON only ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
def test_a_body_that_is_not_json_is_415(client, content_type):
    body = "username=hana&password=a-long-pass-phrase"
    if content_type.startswith("multipart"):
        body = '--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nhana\r\n--x--\r\n'
    response = client.post("/api/v1/players/", body, content_type=content_type)
    assert_problem(response, 415, "unsupported_media_type")
    assert not User.objects.filter(username="hana").exists()
