"""Partner casinos through the accounts API (accounts/api.py): signed requests, their own
players, transfers."""

import hashlib
import hmac
import json
import time

import pytest

from accounts.models import Transfer
from accounts.services import partner_create
from ledger.verification import ledger_verify
from tests.casino.helpers import PartnerClient, sign

pytestmark = pytest.mark.django_db
BASE = "/api/v1/partner/players"


@pytest.fixture
def partner_pair(client, db):
    partner, secret = partner_create(name="Lucky Casino")
    return partner, secret, PartnerClient(client, partner, secret)


@pytest.fixture
def api(partner_pair):
    return partner_pair[2]


def fund(api, external_id="ext-1", amount=50_000):
    api.put(f"{BASE}/{external_id}/", {"currency": "EUR"})
    return api.post(
        f"{BASE}/{external_id}/transfers/",
        {"direction": "in", "amount": amount, "reference": "dep-1"},
        HTTP_IDEMPOTENCY_KEY=f"fund-{external_id}",
    )


def test_put_creates_then_returns_the_player(api):
    created = api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    assert created.status_code == 201 and created.json()["external_id"] == "ext-1"
    again = api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    assert api.put(f"{BASE}/ext-2/", {"currency": "eur"}).status_code == 400


def test_transfers_in_and_out(api):
    response = fund(api, amount=50_000)
    assert response.status_code == 201 and response.json()["balance"] == 50_000 and response.json()["direction"] == "in"
    out = api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "out", "amount": 20_000, "reference": "wd-1"},
        HTTP_IDEMPOTENCY_KEY="wd-1",
    )
    assert out.status_code == 201 and out.json()["balance"] == 30_000
    assert api.get(f"{BASE}/ext-1/wallet/").json() == {"currency": "EUR", "balance": 30_000, "in_play": 0}
    too_much = api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "out", "amount": 30_001, "reference": "wd-2"},
        HTTP_IDEMPOTENCY_KEY="wd-2",
    )
    assert too_much.status_code == 422 and too_much.json()["code"] == "insufficient_funds"
    assert Transfer.objects.count() == 2 and ledger_verify().ok


@pytest.mark.parametrize("amount", [1.5, "100", 0, -5])
def test_transfer_amounts_must_be_positive_integers(api, amount):
    api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    response = api.post(
        f"{BASE}/ext-1/transfers/", {"direction": "in", "amount": amount, "reference": "r"}, HTTP_IDEMPOTENCY_KEY="a"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_amount"


def test_a_retried_transfer_moves_money_once(api):
    first = fund(api)
    again = api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "in", "amount": 50_000, "reference": "dep-1"},
        HTTP_IDEMPOTENCY_KEY="fund-ext-1",
    )
    assert again.json() == first.json() and api.get(f"{BASE}/ext-1/wallet/").json()["balance"] == 50_000
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"  # its bytes, as API.md says
    assert again["X-Request-ID"] == first["X-Request-ID"] != again["X-Replay-Request-ID"]


def test_a_partner_never_sees_another_partners_players(api, client, table):
    fund(api, "shared-id")
    other, other_secret = partner_create(name="Other Casino")
    other_api = PartnerClient(client, other, other_secret)
    assert other_api.get(f"{BASE}/shared-id/wallet/").status_code == 404
    assert (
        other_api.post(
            f"{BASE}/shared-id/transfers/",
            {"direction": "out", "amount": 1, "reference": "x"},
            HTTP_IDEMPOTENCY_KEY="x",
        ).status_code
        == 404
    )
    # The same external id at the other partner is another player.
    assert other_api.put(f"{BASE}/shared-id/", {"currency": "EUR"}).status_code == 201
    assert other_api.get(f"{BASE}/shared-id/wallet/").json()["balance"] == 0


def test_a_player_token_cannot_use_the_partner_api(player_client):
    response = player_client.get(f"{BASE}/ext-1/wallet/")
    assert response.status_code == 401 and response.json()["code"] == "signature_invalid"


@pytest.mark.parametrize(
    "tamper", ["no_headers", "wrong_secret", "old", "future", "unknown_key", "bad_nonce", "body_changed"]
)
def test_bad_signatures_are_401(partner_pair, client, tamper):
    partner, secret, _ = partner_pair
    path = f"{BASE}/ext-1/"
    body = json.dumps({"currency": "EUR"}).encode()
    headers = sign(partner, "wrong" if tamper == "wrong_secret" else secret, "PUT", path, body)
    if tamper == "no_headers":
        headers = {}
    elif tamper in ("old", "future"):
        ts = str(int(time.time()) + (-301 if tamper == "old" else 301))
        headers["HTTP_X_TIMESTAMP"] = ts
        headers["HTTP_X_SIGNATURE"] = hmac.new(
            secret.encode(), f"{ts}.{headers['HTTP_X_NONCE']}.PUT.{path}.".encode() + body, hashlib.sha256
        ).hexdigest()
    elif tamper == "unknown_key":
        headers["HTTP_X_PARTNER_KEY"] = "pk_nobody"
    elif tamper == "bad_nonce":
        headers["HTTP_X_NONCE"] = "short"
    elif tamper == "body_changed":
        body = json.dumps({"currency": "USD"}).encode()
    response = client.put(path, data=body, content_type="application/json", **headers)
    assert response.status_code == 401 and response.json()["code"] == "signature_invalid"


def test_a_replayed_nonce_is_401(partner_pair, client):
    partner, secret, _ = partner_pair
    path = f"{BASE}/ext-1/"
    body = json.dumps({"currency": "EUR"}).encode()
    headers = sign(partner, secret, "PUT", path, body)
    assert client.put(path, data=body, content_type="application/json", **headers).status_code == 201
    replay = client.put(path, data=body, content_type="application/json", **headers)
    assert replay.status_code == 401 and replay.json()["code"] == "signature_invalid"


def test_a_transfer_reference_must_be_printable(api):
    api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    response = api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "in", "amount": 100, "reference": "a\x00b"},
        HTTP_IDEMPOTENCY_KEY="nul",
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


@pytest.mark.parametrize("currency", ["ZZZ", "eur", "JPY", "EURO", 978, None])
def test_a_new_player_needs_an_iso_4217_currency_with_cents(api, currency):
    response = api.put(f"{BASE}/ext-9/", {"currency": currency})
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    assert not Transfer.objects.exists() and api.get(f"{BASE}/ext-9/wallet/").status_code == 404


def test_an_external_id_of_other_characters_is_refused(api):
    assert api.put(f"{BASE}/a%20b/", {"currency": "EUR"}).status_code == 400
