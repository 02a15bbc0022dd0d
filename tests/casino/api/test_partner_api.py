"""Partner casinos: signed requests, their own players, transfers, and signed webhooks."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from accounts.models import Transfer
from accounts.services import partner_create
from casino.models import WebhookDelivery
from casino.services.webhooks import webhook_deliver, webhooks_deliver_due
from ledger.selectors import player_wallet_summary
from tests.casino.helpers import PartnerClient, set_next_round

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


def test_partner_plays_rounds_for_its_player(api, table, django_capture_on_commit_callbacks):
    fund(api)
    player = Transfer.objects.get().player
    set_next_round(player, tie=True)
    placed = api.post(f"{BASE}/ext-1/rounds/", {"table": str(table.pk), "main_bet": 1000}, HTTP_IDEMPOTENCY_KEY="r1")
    assert placed.status_code == 201 and placed.json()["status"] == "awaiting_decision"
    with django_capture_on_commit_callbacks(execute=True):
        decided = api.post(
            f"{BASE}/ext-1/rounds/{placed.json()['id']}/decision/", {"action": "surrender"}, HTTP_IDEMPOTENCY_KEY="d1"
        )
    assert decided.status_code == 200 and decided.json()["outcome"] == "surrender"
    assert api.get(f"{BASE}/ext-1/rounds/").json()["count"] == 1
    assert api.get(f"{BASE}/ext-1/rounds/{placed.json()['id']}/").json()["status"] == "settled"
    assert api.get(f"{BASE}/ext-1/wallet/transactions/").json()["count"] == 3  # transfer in, stake, payout
    assert api.get(f"{BASE}/ext-1/fairness/").json()["nonce"] == 1


def test_the_signature_covers_the_query_string(api):
    fund(api)
    assert api.get(f"{BASE}/ext-1/rounds/?limit=5").status_code == 200


# --- webhooks -------------------------------------------------------------------------------------------


class Receiver(BaseHTTPRequestHandler):
    received: list = []
    answers: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Receiver.received.append((self.path, dict(self.headers), body))
        status = Receiver.answers.pop(0) if Receiver.answers else 200
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver(outbound_private):
    Receiver.received, Receiver.answers = [], []
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def test_settlement_sends_a_signed_webhook_retried_until_2xx(
    api, partner_pair, table, receiver, django_capture_on_commit_callbacks
):
    partner, secret, _ = partner_pair
    partner.webhook_url = f"http://127.0.0.1:{receiver.server_port}/hooks/casino?x=1"
    partner.save()
    fund(api)
    Receiver.answers = [500, 503]
    set_next_round(Transfer.objects.get().player, tie=False)
    with django_capture_on_commit_callbacks(execute=True):
        placed = api.post(
            f"{BASE}/ext-1/rounds/", {"table": str(table.pk), "main_bet": 1000}, HTTP_IDEMPOTENCY_KEY="r1"
        ).json()
    delivery = WebhookDelivery.objects.get()
    assert delivery.delivered_at is None and delivery.attempts == 1 and delivery.last_status_code == 500
    assert not webhook_deliver(delivery_id=delivery.id)  # 503
    assert webhook_deliver(delivery_id=delivery.id)  # 200
    delivery.refresh_from_db()
    assert (
        delivery.attempts == 3
        and delivery.delivered_at
        and list(delivery.attempt_log.values_list("status_code", flat=True)) == [500, 503, 200]
    )
    ids = set()
    for path, headers, body in Receiver.received:
        event = json.loads(body)
        ids.add(event["id"])
        assert path == "/hooks/casino?x=1" and event["type"] == "round.settled" and event["data"]["id"] == placed["id"]
        assert event["data"]["status"] == "settled"
        expected = hmac.new(
            secret.encode(),
            f"{headers['X-Timestamp']}.{headers['X-Nonce']}.POST./hooks/casino.".encode() + body,
            hashlib.sha256,
        ).hexdigest()
        assert headers["X-Signature"] == expected and headers["X-Nonce"] == event["id"]
    assert ids == {str(delivery.id)}  # every retry carries the same event id
    assert webhooks_deliver_due() == 0  # nothing left to deliver


def test_an_unreachable_partner_backs_off(
    api, partner_pair, table, outbound_private, django_capture_on_commit_callbacks
):
    partner, _, _ = partner_pair
    partner.webhook_url = "http://127.0.0.1:9/unreachable"
    partner.save()
    fund(api)
    set_next_round(Transfer.objects.get().player, tie=False)
    with django_capture_on_commit_callbacks(execute=True):
        api.post(f"{BASE}/ext-1/rounds/", {"table": str(table.pk), "main_bet": 1000}, HTTP_IDEMPOTENCY_KEY="r1")
    delivery = WebhookDelivery.objects.get()
    assert delivery.delivered_at is None and delivery.last_error and delivery.next_attempt_at > delivery.created_at
    assert (
        player_wallet_summary(player=delivery.round.player)["in_play"] == 0
    )  # settlement did not wait for the partner
