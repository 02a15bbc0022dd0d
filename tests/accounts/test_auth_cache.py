"""What authentication remembers (accounts/auth_cache.py): a token or a partner read once is then
checked with one Redis round trip and no statement, and whatever ends or changes it takes effect
on the very next request, in every process; with Redis out of reach nothing is remembered."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import auth_cache, partners
from accounts.auth_cache import REMEMBER_S, auth_forget, auth_read, auth_remembered, token_name
from accounts.models import Player
from accounts.services import partner_create, player_create
from accounts.tokens import token_digest, token_issue, tokens_revoke
from core.actors import Actor
from core.cache import cache_recovered
from core.outbound import request_signature
from tests.casino.helpers import PartnerClient, sign

pytestmark = pytest.mark.django_db


@pytest.fixture
def tina(db):
    return player_create(username="tina", password="a-long-pass-phrase")


@pytest.fixture
def key(tina):
    return token_issue(user=tina.user)


def wallet(client, key):
    return client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {key}")


def reads_of(table: str, call) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as statements:
        result = call()
    return result, sum(f'FROM "{table}"' in s["sql"] or f"FROM {table}" in s["sql"] for s in statements)


def test_a_good_token_is_read_once_then_checked_without_a_statement(client, key):
    first, reads = reads_of("accounts_apitoken", lambda: wallet(client, key))
    assert first.status_code == 200 and reads == 1
    again, reads = reads_of("accounts_apitoken", lambda: wallet(client, key))
    assert again.status_code == 200 and reads == 0


def test_an_unknown_token_is_not_remembered(client):
    for _ in range(2):
        response, reads = reads_of("accounts_apitoken", lambda: wallet(client, "0" * 64))
        assert response.status_code == 401 and reads == 1


@pytest.mark.parametrize("reason", ["signed_out", "excluded", "too_many_tokens"])
def test_a_revoked_token_is_refused_on_the_next_request(client, tina, key, reason):
    assert wallet(client, key).status_code == 200
    tokens_revoke(user=tina.user, digests=[token_digest(key)], actor=Actor.system("t"), reason=reason)
    assert wallet(client, key).status_code == 401


def test_a_revocation_reaches_what_another_process_remembers(client, tina, key):
    """Every process checks the version in Redis: an entry another process keeps is out of date too."""
    assert wallet(client, key).status_code == 200
    name = token_name(token_digest(key))
    kept = dict(auth_cache._entries)  # as another process would still hold it
    tokens_revoke(user=tina.user, actor=Actor.system("t"), reason="signed_out")
    auth_cache._entries.update(kept)
    assert auth_remembered(name, [name]) is None
    assert wallet(client, key).status_code == 401


@pytest.mark.parametrize(("field", "value"), [("is_active", False), ("is_staff", True), ("is_superuser", True)])
def test_a_user_changed_so_that_its_token_is_refused_is_refused_at_once(client, tina, key, field, value):
    assert wallet(client, key).status_code == 200
    setattr(tina.user, field, value)
    tina.user.save()
    assert wallet(client, key).status_code == 401


def test_a_read_that_raced_a_change_is_never_used():
    """The versions are taken before the database is read: a change committed during the read
    leaves what the read found out of date, not in use."""
    name = "auth:token:raced"

    def read_while_it_changes():
        auth_forget([name])  # the change commits while this request reads the database
        return ("stale row",)

    assert auth_read(name, [name], read=read_while_it_changes, value=lambda row: row) == ("stale row",)
    assert auth_remembered(name, [name]) is None


def test_an_entry_is_kept_at_most_remember_s(client, key, monkeypatch):
    assert wallet(client, key).status_code == 200
    later = timezone.now() + timedelta(seconds=REMEMBER_S + 1)
    monkeypatch.setattr("core.clock.now", lambda: later)
    name = token_name(token_digest(key))
    assert auth_remembered(name, [name]) is None


def test_with_redis_out_of_reach_every_request_reads_the_database(client, key, monkeypatch):
    monkeypatch.setattr(auth_cache, "cache_versions", lambda cache, names, create=False: None)
    for _ in range(3):
        response, reads = reads_of("accounts_apitoken", lambda: wallet(client, key))
        assert response.status_code == 200 and reads == 1
    assert auth_cache._entries == {}


def test_redis_answering_again_makes_the_process_forget_everything(client, key):
    from django.core.cache import caches

    assert wallet(client, key).status_code == 200 and auth_cache._entries
    cache_recovered.send(sender=type(caches["default"]), cache=caches["default"])
    assert auth_cache._entries == {}


# --- partners -------------------------------------------------------------------------------------


@pytest.fixture
def partner_pair(db):
    return partner_create(name="Remembered Casino")


def test_a_partner_and_its_player_are_read_once_then_checked_without_a_statement(client, partner_pair):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.put("/api/v1/partner/players/ext-1/", {"currency": "EUR"}).status_code in (200, 201)
    response, reads = reads_of("accounts_partner", lambda: signed.get("/api/v1/partner/players/ext-1/wallet/"))
    assert response.status_code == 200 and reads == 1  # the player was created since: its absence is forgotten
    response, reads = reads_of("accounts_partner", lambda: signed.get("/api/v1/partner/players/ext-1/wallet/"))
    assert response.status_code == 200 and reads == 0


def test_a_new_secret_applies_at_once(client, partner_pair):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.put("/api/v1/partner/players/ext-1/", {"currency": "EUR"}).status_code in (200, 201)
    assert signed.get("/api/v1/partner/players/ext-1/wallet/").status_code == 200
    partner.secret = "a-new-secret-" + "x" * 40
    partner.save()
    assert signed.get("/api/v1/partner/players/ext-1/wallet/").status_code == 401
    assert (
        PartnerClient(client, partner, partner.secret).get("/api/v1/partner/players/ext-1/wallet/").status_code == 200
    )


def test_a_deactivated_partner_is_refused_at_once(client, partner_pair):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.put("/api/v1/partner/players/ext-1/", {"currency": "EUR"}).status_code in (200, 201)
    assert signed.get("/api/v1/partner/players/ext-1/wallet/").status_code == 200
    partner.is_active = False
    partner.save()
    assert signed.get("/api/v1/partner/players/ext-1/wallet/").status_code == 401


def test_a_player_whose_absence_was_remembered_is_found_once_it_exists(client, partner_pair):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.get("/api/v1/partner/players/ext-2/wallet/").status_code == 404
    assert signed.put("/api/v1/partner/players/ext-2/", {"currency": "EUR"}).status_code in (200, 201)
    assert Player.objects.filter(partner=partner, external_id="ext-2").exists()
    assert signed.get("/api/v1/partner/players/ext-2/wallet/").status_code == 200


def _signed_get(client, partner, secret, path, nonce, *, forged=False):
    headers = sign(partner, secret, "GET", path)
    timestamp = headers["HTTP_X_TIMESTAMP"]
    signature = request_signature(secret=secret, timestamp=timestamp, nonce=nonce, method="GET", path=path, body=b"")
    headers |= {"HTTP_X_NONCE": nonce, "HTTP_X_SIGNATURE": "0" * 64 if forged else signature}
    return client.get(path, **headers)


def test_a_remembered_partner_takes_the_nonce_in_the_same_round_trip_and_a_forgery_leaves_no_trace(
    client, partner_pair, monkeypatch
):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.put("/api/v1/partner/players/ext-1/", {"currency": "EUR"}).status_code in (200, 201)
    path = "/api/v1/partner/players/ext-1/wallet/"
    assert _signed_get(client, partner, secret, path, "first-nonce").status_code == 200  # now remembered
    separate = []
    monkeypatch.setattr(partners, "_nonce_first_use", lambda *args: separate.append(args) or True)
    assert _signed_get(client, partner, secret, path, "forged-nonce", forged=True).status_code == 401
    assert _signed_get(client, partner, secret, path, "forged-nonce").status_code == 200  # the nonce was given back
    assert _signed_get(client, partner, secret, path, "forged-nonce").status_code == 401  # and is used now
    assert separate == []  # every nonce above was taken with the versions' check


def test_a_nonce_taken_with_a_stale_entry_is_given_back_and_checked_again(client, partner_pair):
    partner, secret = partner_pair
    signed = PartnerClient(client, partner, secret)
    assert signed.put("/api/v1/partner/players/ext-1/", {"currency": "EUR"}).status_code in (200, 201)
    path = "/api/v1/partner/players/ext-1/wallet/"
    assert _signed_get(client, partner, secret, path, "nonce-before").status_code == 200
    partner.webhook_url = ""
    partner.save()  # what was remembered is out of date: read again, the nonce checked on its own
    assert _signed_get(client, partner, secret, path, "nonce-after").status_code == 200
    assert _signed_get(client, partner, secret, path, "nonce-after").status_code == 401
