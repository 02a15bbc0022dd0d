"""Signed `round.settled` webhooks to partner casinos, retried with backoff until a 2xx.

Sent by core/outbound.py (signed like every call to a partner's server, API.md, with X-Nonce = the
event id; public addresses only; a redirect is a failed attempt). A retry carries the same event id,
so the partner can drop duplicates. A refused URL is recorded on the delivery and retried with
backoff, like any failure, so fixing the URL (or its DNS) lets the event through.
"""

from __future__ import annotations

import functools
import json
import uuid
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from casino.models import Round, WebhookAttempt, WebhookDelivery
from casino.selectors import round_representation
from core.after_commit import after_commit, task_enqueue
from core.outbound import outbound_post
from core.shapes import wire

LEASE_S = 60  # a delivery being attempted is not picked up again for this long
MAX_BACKOFF_S = 3600
DELIVER_WEBHOOK_TASK = "casino.deliver_webhook"  # casino/tasks.py: asked for by name, never imported here


def backoff_seconds(attempts: int) -> int:
    return min(2 ** min(attempts, 20), MAX_BACKOFF_S)


def _webhook_for_round(round_: Round) -> WebhookDelivery | None:
    """The `round.settled` event of a settled round whose partner takes webhooks, not written yet."""
    partner = round_.player.partner
    if partner is None or not partner.webhook_url:
        return None
    delivery = WebhookDelivery(partner=partner, round=round_, next_attempt_at=timezone.now())
    delivery.payload = {"id": str(delivery.id), "type": "round.settled", "data": wire(round_representation(round_))}
    return delivery


def webhooks_create_for_rounds(round_ids: list[uuid.UUID]) -> None:
    """Inside the transaction that settled these rounds (their partners take webhooks): each
    round's event, read with what its payload says, all written by one INSERT (the batch's
    accounts stay locked until that transaction commits: one statement, not one per round);
    delivery starts after commit."""
    if not round_ids:
        return
    rounds = Round.objects.filter(pk__in=round_ids).select_related("player__partner", "seed_pair")
    deliveries = [delivery for delivery in map(_webhook_for_round, rounds) if delivery is not None]
    WebhookDelivery.objects.bulk_create(deliveries)
    for delivery in deliveries:
        after_commit(functools.partial(webhook_enqueue, delivery.id), what=f"queueing webhook {delivery.id}")


def webhook_enqueue(delivery_id: uuid.UUID | str) -> None:
    task_enqueue(
        DELIVER_WEBHOOK_TASK,
        delivery_id,
        attempt_now=lambda: webhook_deliver(delivery_id=delivery_id),
        what=f"webhook {delivery_id}",
    )


def webhook_deliver(*, delivery_id: uuid.UUID | str) -> bool:
    """One attempt. Returns True once the partner has acknowledged the event (now or before)."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True)
            .select_related("partner")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:
            return False
        if delivery.delivered_at is not None:
            return True
        # Lease it: the HTTP call happens outside any transaction and no other worker takes it meanwhile.
        delivery.next_attempt_at = now + timedelta(seconds=LEASE_S)
        delivery.save(update_fields=["next_attempt_at"])

    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    # Signed, to a public address only, no redirect followed; a refusal is a failed attempt (core/outbound.py).
    answer = outbound_post(
        url=delivery.partner.webhook_url, secret=delivery.partner.secret, nonce=str(delivery.id), body=body
    )
    delivered = answer.ok

    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_for_update().get(pk=delivery.pk)
        WebhookAttempt.objects.create(
            delivery=delivery, status_code=answer.status_code, error=answer.error, duration_ms=answer.duration_ms
        )
        delivery.attempts += 1
        delivery.last_status_code = answer.status_code
        delivery.last_error = answer.error
        if delivered:
            delivery.delivered_at = timezone.now()
        else:
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=backoff_seconds(delivery.attempts))
        delivery.save()
    return delivered


def webhooks_deliver_due(*, limit: int = 200) -> int:
    """The sweeper: attempt every undelivered event whose next attempt is due."""
    due = list(
        WebhookDelivery.objects.filter(delivered_at__isnull=True, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("id", flat=True)[:limit]
    )
    return sum(webhook_deliver(delivery_id=delivery_id) for delivery_id in due)
