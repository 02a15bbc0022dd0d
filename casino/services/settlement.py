"""Paying out resolved rounds, exactly once, however often a settlement is attempted.

The round row lock serialises attempts, and the ledger entry's idempotency key makes a repeated
posting harmless, so a duplicate message, a retry after a killed worker (acks_late) or the sweeper
all end in one payout. Side effects (the task itself, webhooks) start only after commit.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from casino.models import Round, RoundStatus
from ledger.services import Actor, stakes_settle

logger = logging.getLogger(__name__)
SWEEP_AFTER_S = 3
_broker_retry_at = 0.0  # after a failed publish, skip the broker for a while: the sweeper catches up


def settlement_enqueue(round_id: uuid.UUID) -> None:
    """Ask a worker to settle the round; never fails the caller (the sweeper is the safety net)."""
    global _broker_retry_at
    from casino.tasks import settle_round_task

    if not settle_round_task.app.conf.task_always_eager and time.monotonic() < _broker_retry_at:
        return
    try:
        settle_round_task.delay(str(round_id))
    except Exception:  # the broker is down: placing rounds must keep working
        _broker_retry_at = time.monotonic() + 5
        logger.warning("could not queue settlement of round %s; the sweeper will settle it", round_id, exc_info=True)


def round_settle(*, round_id: uuid.UUID | str) -> bool:
    """Pay the round's payout into the wallet through the ledger. True if this call settled it."""
    from casino.services.webhooks import webhook_create_for_round

    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(of=("self",))
            .select_related("player__partner", "seed_pair", "table")
            .filter(pk=round_id)
            .first()
        )
        if round_ is None or round_.status != RoundStatus.RESOLVED:
            return False
        staked = round_.main_bet + round_.tie_bet + round_.raise_bet
        stakes_settle(
            player=round_.player, currency=round_.currency, staked=staked, payout=round_.payout,
            idempotency_key=f"round:{round_.id}:settle", actor=Actor.system("settlement"),
            reason=f"{round_.outcome}: payout {round_.payout} of {staked} staked",
            reference_type="round", reference_id=str(round_.id),
        )  # fmt: skip
        round_.status = RoundStatus.SETTLED
        round_.settled_at = timezone.now()
        round_.settle_attempts = F("settle_attempts") + 1
        round_.save(update_fields=["status", "settled_at", "settle_attempts"])
        round_.refresh_from_db(fields=["settle_attempts"])
        webhook_create_for_round(round_)
    return True


def rounds_settle_overdue(*, older_than_s: int = SWEEP_AFTER_S, limit: int = 1000) -> int:
    """The sweeper: settle resolved rounds that no message settled in time (a lost message, a
    dead worker, the broker down for a while)."""
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    due = list(
        Round.objects.filter(status=RoundStatus.RESOLVED, resolved_at__lte=cutoff)
        .order_by("resolved_at")
        .values_list("id", flat=True)[:limit]
    )
    settled = sum(round_settle(round_id=round_id) for round_id in due)
    if settled:
        logger.warning("sweeper settled %d overdue rounds", settled)
    return settled
