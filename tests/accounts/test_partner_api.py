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
        {
            "direction": "in",
            "amount": amount,
            "reference": "dep-1" if external_id == "ext-1" else f"dep-1-{external_id}",
        },
        HTTP_IDEMPOTENCY_KEY=f"fund-{external_id}",
    )


def test_put_creates_then_returns_the_player(api):
    created = api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    assert created.status_code == 201 and created.json()["external_id"] == "ext-1"
    again = api.put(f"{BASE}/ext-1/", {"currency": "EUR"})
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    other = api.put(f"{BASE}/ext-1/", {"currency": "USD"})
    assert other.status_code == 422 and other.json()["code"] == "currency_mismatch"
    # About the player's wallet: no table is involved here.
    assert other.json()["title"] == "The player already exists with a wallet in another currency."
    assert other.json()["detail"] == "the player's wallet is in EUR"
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


def test_a_repeated_reference_with_a_new_key_is_409_and_moves_nothing(api):
    first = fund(api, amount=50_000)
    again = api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "in", "amount": 50_000, "reference": "dep-1"},
        HTTP_IDEMPOTENCY_KEY="a-new-key",
    )
    assert again.status_code == 409 and again["Content-Type"] == "application/problem+json"
    body = again.json()
    assert body["code"] == "duplicate_reference" and first.json()["id"] in body["detail"]
    assert Transfer.objects.count() == 1 and api.get(f"{BASE}/ext-1/wallet/").json()["balance"] == 50_000
    # Another direction or player does not make the reference new either: one transfer per reference.
    api.put(f"{BASE}/ext-2/", {"currency": "EUR"})
    other = api.post(
        f"{BASE}/ext-2/transfers/",
        {"direction": "in", "amount": 1, "reference": "dep-1"},
        HTTP_IDEMPOTENCY_KEY="other-player",
    )
    assert other.status_code == 409 and Transfer.objects.count() == 1 and ledger_verify().ok


def test_the_partner_lists_its_transfers_and_its_players_wallet_lines_carry_the_reference(api, client):
    fund(api, "ext-1", amount=50_000)
    api.post(
        f"{BASE}/ext-1/transfers/",
        {"direction": "out", "amount": 20_000, "reference": "wd-1"},
        HTTP_IDEMPOTENCY_KEY="wd-1",
    )
    fund(api, "ext-2", amount=7_000)
    Transfer.objects.filter(reference="dep-1").update(created_at="2026-11-30T23:59:59Z")
    other, other_secret = partner_create(name="Other Casino")
    PartnerClient(client, other, other_secret).put(f"{BASE}/ext-9/", {"currency": "EUR"})

    every = api.get("/api/v1/partner/transfers/").json()
    assert every["count"] == 3 and every["next"] is None
    assert [(t["player"], t["direction"], t["amount"], t["reference"]) for t in every["results"]] == [
        ("ext-2", "in", 7_000, "dep-1-ext-2"),
        ("ext-1", "out", 20_000, "wd-1"),
        ("ext-1", "in", 50_000, "dep-1"),
    ]
    assert set(every["results"][0]) == {"id", "player", "direction", "amount", "currency", "reference", "created_at"}
    day = api.get("/api/v1/partner/transfers/?date=2026-11-30").json()
    assert [t["reference"] for t in day["results"]] == ["dep-1"]
    assert api.get("/api/v1/partner/transfers/?reference=wd-1").json()["results"][0]["amount"] == 20_000
    page = api.get("/api/v1/partner/transfers/?limit=1&offset=1").json()
    assert [t["reference"] for t in page["results"]] == ["wd-1"] and page["count"] == 3
    assert api.get("/api/v1/partner/transfers/?date=30-11-2026").status_code == 400

    of_one = api.get(f"{BASE}/ext-1/transfers/").json()
    assert [t["reference"] for t in of_one["results"]] == ["wd-1", "dep-1"]
    lines = api.get(f"{BASE}/ext-1/wallet/transactions/").json()["results"]
    assert [(line["kind"], line["amount"], line["reference"]) for line in lines] == [
        ("transfer_out", -20_000, "wd-1"),
        ("transfer_in", 50_000, "dep-1"),
    ]
