"""Webhook deliveries go through core/outbound.py: a redirect is a failed delivery (never followed,
the signature never leaves for the address it points to), and a URL that resolves to a loopback,
private or link-local address is refused at delivery time, the refusal recorded on the delivery."""

import json

import pytest

from accounts.models import Partner
from accounts.services import partner_create
from casino.models import WebhookDelivery
from casino.services.rounds import round_place
from casino.services.webhooks import webhook_deliver
from core.actors import Actor
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
