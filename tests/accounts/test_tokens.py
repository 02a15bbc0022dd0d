"""Players' API tokens (accounts/tokens.py): a new one per sign-in, ended by idleness, sign-out, a
password change and an exclusion; checked with one statement, `last_used_at` written at most once a
minute; a key of any other form never reaches the database."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import ApiToken
from accounts.services import player_create
from accounts.tokens import TOKENS_PER_USER, token_digest, token_issue, tokens_purge_idle
from core.models import AuditEvent

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-phrase"


@pytest.fixture
def clock(monkeypatch):
    """Move the service's clock: clock.advance(minutes=61)."""

    class Clock:
        offset = timedelta()

        def advance(self, **kwargs):
            self.offset += timedelta(**kwargs)

    moved = Clock()
    monkeypatch.setattr("core.clock.now", lambda: timezone.now() + moved.offset)
    return moved


@pytest.fixture
def tina(db):
    return player_create(username="tina", password=PASSWORD)


def sign_in(client, username="tina", password=PASSWORD, **headers):
    return client.post(
        "/api/v1/auth/token/", {"username": username, "password": password}, content_type="application/json", **headers
    )


def wallet(client, key):
    return client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {key}")


def test_every_sign_in_issues_a_new_token_and_each_works(client, tina):
    first, second = sign_in(client).json()["token"], sign_in(client).json()["token"]
    assert first != second
    assert wallet(client, first).status_code == 200 and wallet(client, second).status_code == 200


def test_only_a_digest_of_the_key_is_stored(client, tina):
    key = sign_in(client).json()["token"]
    assert list(ApiToken.objects.values_list("digest", flat=True)) == [token_digest(key)] and key != token_digest(key)


def test_a_token_unused_for_the_idle_time_is_refused(client, tina, clock, settings):
    key = sign_in(client).json()["token"]
    clock.advance(minutes=settings.API_TOKEN_IDLE_MINUTES - 1)
    assert wallet(client, key).status_code == 200  # used: idle again from now
    clock.advance(minutes=settings.API_TOKEN_IDLE_MINUTES - 1)
    assert wallet(client, key).status_code == 200
    clock.advance(minutes=settings.API_TOKEN_IDLE_MINUTES + 1)
    response = wallet(client, key)
    assert response.status_code == 401 and response["Content-Type"] == "application/problem+json"
    assert "sign in again" in response.json()["detail"]


def test_the_idle_time_is_a_setting(client, tina, clock, settings):
    settings.API_TOKEN_IDLE_MINUTES = 5
    key = sign_in(client).json()["token"]
    clock.advance(minutes=6)
    assert wallet(client, key).status_code == 401


def test_last_used_at_is_written_at_most_once_a_minute(client, tina, clock):
    key = sign_in(client).json()["token"]

    def updates():
        with CaptureQueriesContext(connection) as statements:
            assert wallet(client, key).status_code == 200
        return [s["sql"] for s in statements.captured_queries if s["sql"].startswith('UPDATE "accounts_apitoken"')]

    assert updates() == [] and updates() == []
    clock.advance(seconds=61)
    assert len(updates()) == 1
    assert updates() == []
    assert ApiToken.objects.get().last_used_at > ApiToken.objects.get().created_at + timedelta(seconds=60)


def test_sign_out_ends_the_token_it_is_sent_with_and_only_that_one(client, tina):
    ended, other = sign_in(client).json()["token"], sign_in(client).json()["token"]
    response = client.delete("/api/v1/auth/token/", HTTP_AUTHORIZATION=f"Token {ended}")
    assert response.status_code == 204
    assert wallet(client, ended).status_code == 401 and wallet(client, other).status_code == 200
    assert client.delete("/api/v1/auth/token/", HTTP_AUTHORIZATION=f"Token {ended}").status_code == 401
    assert client.delete("/api/v1/auth/token/").status_code == 401
    event = AuditEvent.objects.get(action="tokens.revoked")
    assert event.data == {"count": 1, "reason": "signed_out"} and event.actor_type == "player"


def test_a_password_change_ends_every_token(client, tina):
    keys = [sign_in(client).json()["token"] for _ in range(3)]
    user = tina.user
    user.set_password("another-long-pass-phrase")
    user.save()
    assert all(wallet(client, key).status_code == 401 for key in keys)
    assert AuditEvent.objects.get(action="tokens.revoked").data == {"count": 3, "reason": "password_changed"}
    assert sign_in(client, password="another-long-pass-phrase").status_code == 200


def test_a_password_changed_by_the_command_line_ends_every_token(client, tina, monkeypatch):
    key = sign_in(client).json()["token"]
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "yet-another-pass-phrase")
    call_command("changepassword", "tina")
    assert wallet(client, key).status_code == 401


def test_saving_a_user_without_changing_the_password_keeps_the_tokens(client, tina):
    key = sign_in(client).json()["token"]
    user = type(tina.user).objects.get(pk=tina.user.pk)
    user.email = "tina@example.com"
    user.save()
    user.last_login = timezone.now()
    user.save(update_fields=["last_login"])
    assert wallet(client, key).status_code == 200


@pytest.mark.parametrize("body", [{"kind": "timeout", "days": 1}, {"kind": "self_exclusion", "months": 6}])
def test_an_exclusion_ends_every_token(client, tina, body):
    key, other = sign_in(client).json()["token"], sign_in(client).json()["token"]
    response = client.post(
        "/api/v1/protection/exclusions/", body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert response.status_code in (200, 201), response.content
    assert wallet(client, key).status_code == 401 and wallet(client, other).status_code == 401
    assert AuditEvent.objects.get(action="tokens.revoked").data == {"count": 2, "reason": "excluded"}


def test_a_sign_in_beyond_the_number_kept_ends_the_oldest(client, tina, clock):
    keys = []
    for _ in range(TOKENS_PER_USER + 1):
        keys.append(token_issue(user=tina.user))
        clock.advance(seconds=1)
    assert ApiToken.objects.filter(user=tina.user).count() == TOKENS_PER_USER
    assert wallet(client, keys[0]).status_code == 401 and wallet(client, keys[-1]).status_code == 200


def test_a_stale_token_in_the_headers_does_not_stop_a_sign_in(client, tina):
    response = sign_in(client, HTTP_AUTHORIZATION="Token " + "0" * 64)
    assert response.status_code == 200


def test_idle_tokens_are_purged(tina, clock, settings):
    token_issue(user=tina.user)
    clock.advance(minutes=settings.API_TOKEN_IDLE_MINUTES - 1)
    kept = token_issue(user=tina.user)
    clock.advance(minutes=2)
    assert tokens_purge_idle() == 1
    assert list(ApiToken.objects.values_list("digest", flat=True)) == [token_digest(kept)]


@pytest.mark.parametrize(
    "header",
    [
        "Token a\x00b",
        "Token " + "a" * 5_000,
        "Token \u00e9",
        "Token " + "0" * 63 + "\x00",
        "Token " + "G" * 64,
        "Token " + "A" * 64,
    ],
)
def test_a_token_of_another_form_is_refused_without_a_query(client, tina, header):
    """A NUL in the key reached PostgreSQL and was a 500."""
    with CaptureQueriesContext(connection) as statements:
        response = client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401 and response["Content-Type"] == "application/problem+json"
    assert not [s for s in statements.captured_queries if "accounts_apitoken" in s["sql"]]


def test_a_token_of_a_user_who_became_staff_or_was_deactivated_is_refused(client, tina):
    key = sign_in(client).json()["token"]
    tina.user.is_staff = True
    tina.user.save()
    assert wallet(client, key).status_code == 401
    tina.user.is_staff, tina.user.is_active = False, False
    tina.user.save()
    assert wallet(client, key).status_code == 401
