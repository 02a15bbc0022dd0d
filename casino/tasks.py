"""Celery tasks: thin wrappers around services. `acks_late` (settings) plus idempotent services
make a worker killed mid-task harmless: the message is delivered again and changes nothing twice."""

from celery import shared_task

from casino.reports import round_hours_sum_up
from casino.services.matches import matches_purge
from casino.services.rounds import rounds_decide_timed_out
from casino.services.settlement import SETTLE_DUE_TASK, round_settle, rounds_settle_due, rounds_settle_overdue
from casino.services.webhooks import DELIVER_WEBHOOK_TASK, webhook_deliver, webhooks_deliver_due


@shared_task(name="casino.settle_round", acks_late=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5)
def settle_round_task(round_id: str) -> bool:
    return round_settle(round_id=round_id)


@shared_task(name=SETTLE_DUE_TASK, acks_late=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5)
def settle_due_task() -> int:
    rounds_decide_timed_out()  # overdue decisions do not wait for beat (cheap: an indexed read)
    return rounds_settle_due()


@shared_task(name="casino.settle_overdue")
def settle_overdue_task() -> int:
    return rounds_settle_overdue()


@shared_task(name="casino.decide_timed_out")
def decide_timed_out_task() -> int:
    return rounds_decide_timed_out()


@shared_task(name=DELIVER_WEBHOOK_TASK, acks_late=True)
def deliver_webhook_task(delivery_id: str) -> bool:
    return webhook_deliver(delivery_id=delivery_id)


@shared_task(name="casino.deliver_due_webhooks")
def deliver_due_webhooks_task() -> int:
    return webhooks_deliver_due()


@shared_task(name="casino.purge_matches")
def purge_matches_task() -> int:
    return matches_purge()


@shared_task(name="casino.sum_up_round_hours")
def sum_up_round_hours_task() -> int:
    return round_hours_sum_up()
