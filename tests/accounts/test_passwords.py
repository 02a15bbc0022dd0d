"""Players' passwords (issue #28, "Also"): Django's validators and zxcvbn's guess estimate refuse
weak ones everywhere a password is chosen; a signed-in player changes theirs (API and page),
which ends every token and every other session; a token sent as `Bearer` is a token."""

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.services import player_create
from accounts.tokens import token_issue
from core.models import AuditEvent
from tests.casino.api.test_player_api import assert_problem

pytestmark = pytest.mark.django_db
OLD = "the-first-passphrase-4"
NEW = "a-second-long-phrase-8"


@pytest.fixture
def alice():
    return player_create(username="alice", password=OLD, email="alice@example.com")


def sign_in(client, password):
    return client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": password}, content_type="application/json"
    )


@pytest.mark.parametrize("password", ["zzzzzzzzzzzzzzz", "qwertyuiop", "alice12345", "Password123", "12345678901"])
def test_weak_passwords_are_refused_at_sign_up(client, password):
    response = client.post(
        "/api/v1/players/", {"username": "newcomer", "password": password}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_input")
    page = client.post("/signup/", {"username": "newcomer2", "password": password, "email": ""})
    assert page.status_code == 200 and "errorlist" in page.content.decode()


def test_a_token_caller_changes_the_password_and_gets_a_new_token(client, alice):
    old_token = sign_in(client, OLD).json()["token"]
    other_token = token_issue(user=alice.user)
    headers = {"HTTP_AUTHORIZATION": f"Token {old_token}"}
    change = lambda body: client.post("/api/v1/auth/password/", body, content_type="application/json", **headers)  # noqa: E731
    assert_problem(change({"old_password": "wrong-one", "new_password": NEW}), 400, "invalid_credentials")
    assert_problem(change({"old_password": OLD, "new_password": "zzzzzzzzzzzzzzz"}), 400, "invalid_input")
    assert_problem(change({"old_password": OLD, "new_password": OLD}), 400, "invalid_input")
    assert_problem(change({"old_password": OLD, "new_password": NEW, "extra": 1}), 400, "invalid_input")
    answer = change({"old_password": OLD, "new_password": NEW})
    assert answer.status_code == 200 and answer.json()["token"]
    assert ApiToken.objects.filter(user=alice.user).count() == 1  # the old ones ended, the new one only
    for gone in (old_token, other_token):
        assert client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {gone}").status_code == 401
    assert client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {answer.json()['token']}").status_code == 200
    assert sign_in(client, OLD).status_code == 400 and sign_in(client, NEW).status_code == 200
    assert AuditEvent.objects.filter(action="player.password_changed", object_id=str(alice.pk)).exists()


def test_a_session_caller_keeps_its_session_and_the_others_end(alice):
    mine, other = Client(enforce_csrf_checks=False), Client()
    mine.force_login(alice.user)
    other.force_login(alice.user)
    answer = mine.post(
        "/api/v1/auth/password/", {"old_password": OLD, "new_password": NEW}, content_type="application/json"
    )
    assert answer.status_code == 200 and answer.json() == {"token": None}
    assert mine.get("/api/v1/wallet/").status_code == 200
    assert other.get("/api/v1/wallet/").status_code in (401, 403)


def test_wrong_current_passwords_are_counted(client, alice):
    token = token_issue(user=alice.user)
    statuses = [
        client.post(
            "/api/v1/auth/password/",
            {"old_password": f"guess-{n}", "new_password": NEW},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Token {token}",
        ).status_code
        for n in range(11)
    ]
    assert statuses == [400] * 10 + [429]


def test_the_web_page_changes_the_password(client, alice):
    other = Client()
    other.force_login(alice.user)
    client.force_login(alice.user)
    assert "Change your password" in client.get("/wallet/").content.decode()
    page = client.get("/account/password/")
    assert page.status_code == 200 and 'autocomplete="current-password"' in page.content.decode()
    differ = client.post("/account/password/", {"old_password": OLD, "new_password": NEW, "new_password_again": "x"})
    assert differ.status_code == 200 and "differ" in differ.content.decode()
    weak = client.post(
        "/account/password/",
        {"old_password": OLD, "new_password": "zzzzzzzzzzzzzzz", "new_password_again": "zzzzzzzzzzzzzzz"},
    )
    assert weak.status_code == 200 and "guess" in weak.content.decode()
    done = client.post("/account/password/", {"old_password": OLD, "new_password": NEW, "new_password_again": NEW})
    assert done.status_code == 302 and done.url == "/wallet/"
    assert client.get("/wallet/").status_code == 200  # this session goes on
    assert other.get("/wallet/").status_code == 302  # the other device is signed out
    alice.user.refresh_from_db()
    assert alice.user.check_password(NEW)


def test_a_bearer_token_is_a_token(client, alice):
    token = token_issue(user=alice.user)
    assert client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    assert client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"bearer {token}").status_code == 200
    refused = client.get("/api/v1/wallet/", HTTP_AUTHORIZATION="Bearer " + "0" * 64)
    assert_problem(refused, 401, "not_authenticated")
    assert "sign in again" in refused.json()["detail"]
    spaced = client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Bearer {token} extra")
    assert_problem(spaced, 401, "not_authenticated")
    assert "Token <token>" in spaced.json()["detail"]
