"""Webhook deliveries go through core/outbound.py: a redirect is a failed delivery (never followed,
the signature never leaves for the address it points to), and a URL that resolves to a loopback,
private or link-local address is refused at delivery time, the refusal recorded on the delivery."""

import functools
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Partner
from accounts.services import partner_create
from casino.models import WebhookDelivery
from casino.selectors import round_representation
from casino.services.rounds import round_place
from casino.services.settlement import rounds_settle_due
from casino.services.webhooks import webhook_deliver, webhook_enqueue
from core.actors import Actor
from core.shapes import wire
from tests.casino.helpers import set_next_round
from tests.factories import make_player
from tests.servers import Answer, PartnerServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def partner(db):
    return partner_create(name="Lucky Casino")[0]


def settle_a_partner_round(partner, table, capture) -> WebhookDelivery:
    player = make_player(balance=10_000, partner=partner, external_id="ext-1")
    set_next_round(player, tie=False)
    with capture(execute=True):  # settlement and the first delivery attempt run on commit
        round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.partner(partner))
    return WebhookDelivery.objects.get()


def point_webhooks_at(partner, url: str) -> None:
    """As if saved when the name still resolved to a public address: the check at save time passed."""
    Partner.objects.filter(pk=partner.pk).update(webhook_url=url)
    partner.refresh_from_db()


def test_a_redirect_is_a_failed_delivery_and_is_not_followed(
    partner, table, outbound_private, django_capture_on_commit_callbacks
):
    with PartnerServer() as elsewhere, PartnerServer(Answer(302, {"Location": elsewhere.url("/collect")})) as hooks:
        point_webhooks_at(partner, hooks.url("/hooks"))
        delivery = settle_a_partner_round(partner, table, django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert delivery.attempts == 1 and delivery.delivered_at is None and delivery.last_status_code == 302
    assert "redirects are not followed" in delivery.last_error and elsewhere.url("/collect") in delivery.last_error
    assert elsewhere.received == []  # neither the body nor the signature went there
    assert [(r.method, "X-Signature" in r.headers) for r in hooks.received] == [("POST", True)]


def test_a_webhook_is_delivered_once_the_partner_answers_2xx(
    partner, table, outbound_private, django_capture_on_commit_callbacks
):
    with PartnerServer(302, 200) as hooks:
        point_webhooks_at(partner, hooks.url("/hooks"))
        delivery = settle_a_partner_round(partner, table, django_capture_on_commit_callbacks)
        assert webhook_deliver(delivery_id=delivery.id)
    delivery.refresh_from_db()
    assert list(delivery.attempt_log.values_list("status_code", flat=True)) == [302, 200]
    assert delivery.delivered_at and delivery.last_error == ""
    assert [json.loads(r.body)["id"] for r in hooks.received] == [str(delivery.id)] * 2


@pytest.mark.parametrize("address", ["127.0.0.1", "10.20.30.40", "169.254.169.254"])
def test_a_url_resolving_to_a_private_address_is_refused_at_delivery(
    partner, table, fake_dns, address, admin_client, django_capture_on_commit_callbacks
):
    fake_dns["hooks.partner.example"] = address
    with PartnerServer() as hooks:  # listening on 127.0.0.1, so nothing but the refusal stops the call
        point_webhooks_at(partner, f"http://hooks.partner.example:{hooks.port}/hooks")
        delivery = settle_a_partner_round(partner, table, django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert hooks.received == [] and delivery.delivered_at is None and delivery.last_status_code is None
    assert delivery.last_error.startswith("refused: hooks.partner.example resolves to " + address)
    assert delivery.attempt_log.get().error == delivery.last_error
    assert delivery.next_attempt_at > delivery.created_at  # retried with backoff, in case the URL is fixed
    page = admin_client.get(f"/admin/casino/webhookdelivery/{delivery.id}/change/").content.decode()
    assert "refused: hooks.partner.example resolves to" in page


def test_a_settlement_batch_writes_its_rounds_events_with_one_insert_and_queues_them_after_commit(
    partner, table, django_capture_on_commit_callbacks
):
    """The batch's accounts stay locked until its transaction commits: its rounds' events are
    written by one statement, not one per round; each is queued for delivery after the commit."""
    point_webhooks_at(partner, "https://hooks.example.com/events")
    players = [make_player(balance=10_000, partner=partner, external_id=f"ext-{n}") for n in range(3)]
    with django_capture_on_commit_callbacks(execute=False):  # left resolved, for one batch below
        for player in players:
            set_next_round(player, tie=False)
            round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.partner(partner))
    with django_capture_on_commit_callbacks(execute=False) as queued, CaptureQueriesContext(connection) as ran:
        assert rounds_settle_due() == 3
    inserts = [q["sql"] for q in ran.captured_queries if q["sql"].startswith('INSERT INTO "casino_webhookdelivery"')]
    assert len(inserts) == 1
    deliveries = list(WebhookDelivery.objects.select_related("round__player__partner", "round__seed_pair"))
    assert sorted(d.round.player.external_id for d in deliveries) == ["ext-0", "ext-1", "ext-2"]
    for delivery in deliveries:
        assert delivery.partner_id == partner.pk and delivery.round.status == "settled"
        assert delivery.payload == {
            "id": str(delivery.id),
            "type": "round.settled",
            "data": wire(round_representation(delivery.round)),
        }
        assert delivery.attempts == 0 and delivery.created_at is not None
    enqueued = [c.args[0] for c in queued if isinstance(c, functools.partial) and len(c.args) == 2]
    assert sorted(str(e.args[0]) for e in enqueued if getattr(e, "func", None) is webhook_enqueue) == sorted(
        str(d.id) for d in deliveries
    )
