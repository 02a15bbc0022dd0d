"""Celery tasks: thin wrappers around services. `acks_late` (settings) plus idempotent services
make a worker killed mid-task harmless: the message is delivered again and changes nothing twice."""

from celery import shared_task

from casino.reports import round_hours_sum_up
from casino.services.matches import matches_purge
from casino.services.rounds import DECIDE_DUE_TASK, rounds_decide_timed_out, rounds_decide_when_due
from casino.services.settlement import SETTLE_DUE_TASK, round_settle, rounds_settle_due, rounds_settle_overdue
from casino.services.wallets import (
    SEND_CREDITS_TASK,
    SEND_WALLET_CALL_TASK,
    wallet_call_send,
    wallet_calls_send_due,
    wallet_credits_send,
)
from casino.services.webhooks import DELIVER_WEBHOOK_TASK, webhook_deliver, webhooks_deliver_due


@shared_task(name="casino.settle_round", acks_late=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5)
def settle_round_task(round_id: str) -> bool:
    return round_settle(round_id=round_id)


@shared_task(name=SETTLE_DUE_TASK, acks_late=True, autoretry_for=(Exception,), retry_backoff=True, max_retries=5)
def settle_due_task() -> int:
    return rounds_settle_due()


@shared_task(name="casino.settle_overdue")
def settle_overdue_task() -> int:
    return rounds_settle_overdue()


@shared_task(name="casino.decide_timed_out")
def decide_timed_out_task() -> int:
    return rounds_decide_timed_out()


@shared_task(name=DECIDE_DUE_TASK, acks_late=True)
def decide_due_task(ends: float) -> int:
    return rounds_decide_when_due(ends=ends)


# Before deadline windows, each tie queued this task for itself; a message of one still in the
# broker when the worker is upgraded (a wait is up to DEADLINE_HOP_S) runs the window's rule.
@shared_task(name="casino.decide_when_due", acks_late=True)
def decide_when_due_task(round_id: str) -> int:
    return rounds_decide_timed_out(wait_for_accounts=True)


@shared_task(name=DELIVER_WEBHOOK_TASK, acks_late=True)
def deliver_webhook_task(delivery_id: str) -> bool:
    return webhook_deliver(delivery_id=delivery_id)


@shared_task(name="casino.deliver_due_webhooks")
def deliver_due_webhooks_task() -> int:
    return webhooks_deliver_due()


@shared_task(name=SEND_WALLET_CALL_TASK, acks_late=True)
def send_wallet_call_task(call_id: str) -> bool:
    return wallet_call_send(call_id=call_id)


@shared_task(name=SEND_CREDITS_TASK, acks_late=True)
def send_credits_task() -> int:
    return wallet_credits_send()


@shared_task(name="casino.send_due_wallet_calls")
def send_due_wallet_calls_task() -> int:
    return wallet_calls_send_due()


@shared_task(name="casino.purge_matches")
def purge_matches_task() -> int:
    return matches_purge()


@shared_task(name="casino.sum_up_round_hours")
def sum_up_round_hours_task() -> int:
    return round_hours_sum_up()
