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

from celery import current_app
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Player
from casino.models import Round, RoundStatus
from casino.services.webhooks import webhook_create_for_round
from core.actors import Actor
from ledger.services import stakes_settle

logger = logging.getLogger(__name__)
SWEEP_AFTER_S = 3
BATCH = 200
# The tasks (casino/tasks.py) wrap these services; a service asks for one by its name, so that the
# services never import the tasks that import them.
SETTLE_DUE_TASK = "casino.settle_due"
# Set by a web process that has just resolved a round and asked a worker for a batch; the worker
# clears it before it looks for due rounds, so a round resolved meanwhile asks again.
SETTLE_WANTED_KEY = "casino:settlement:wanted"
_broker_retry_at = 0.0  # after a failed publish, skip the broker for a while: the sweeper catches up


def settlement_enqueue(round_id: uuid.UUID) -> None:
    """Ask a worker to settle the round; never fails the caller (the sweeper is the safety net).

    With a broker, one message asks for a batch: while a request for one is pending, further
    rounds ride along (a worker settles every due round it finds), so the broker sees one message
    per batch rather than one per round."""
    global _broker_retry_at
    if current_app.conf.task_always_eager:  # no broker: settle this round now, in this process
        round_settle(round_id=round_id)
        return
    if time.monotonic() < _broker_retry_at:
        return
    try:
        if cache.add(SETTLE_WANTED_KEY, 1, timeout=5):
            current_app.send_task(SETTLE_DUE_TASK)
    except Exception:  # the broker is down: placing rounds must keep working
        _broker_retry_at = time.monotonic() + 5
        cache.delete(SETTLE_WANTED_KEY)
        logger.warning("could not queue settlement of round %s; the sweeper will settle it", round_id, exc_info=True)


def round_settle(*, round_id: uuid.UUID | str, skip_locked: bool = False) -> bool:
    """Pay the round's payout into the wallet through the ledger. True if this call settled it.

    With `skip_locked`, a round another attempt is settling right now is left to it at once
    (batches running side by side do not queue behind each other, round after round)."""
    try:
        round_pk = uuid.UUID(str(round_id))
    except ValueError:
        return False
    with transaction.atomic(), connection.cursor() as cursor:
        # One statement claims the round: it takes the row lock and marks it settled, so a
        # concurrent attempt waits here and then finds nothing left to settle. Every round
        # passes this way, hence plain SQL rather than loading the whole round.
        target = "(SELECT id FROM casino_round WHERE id = %s FOR UPDATE SKIP LOCKED)" if skip_locked else "%s"
        cursor.execute(
            "UPDATE casino_round SET status = %s, settled_at = %s, settle_attempts = settle_attempts + 1"
            f" WHERE id = {target} AND status = %s"
            " RETURNING player_id, currency, main_bet + tie_bet + raise_bet, payout, outcome,"
            " (SELECT partner_id FROM accounts_player WHERE id = casino_round.player_id)",
            [RoundStatus.SETTLED.value, timezone.now(), round_pk, RoundStatus.RESOLVED.value],
        )
        claimed = cursor.fetchone()
        if claimed is None:
            return False
        player_id, currency, staked, payout, outcome, partner_id = claimed
        # from_db takes the values in the model's field order
        player = Player.from_db(connection.alias, ("id", "partner_id", "currency"), (player_id, partner_id, currency))
        stakes_settle(
            player=player,
            currency=currency, staked=staked, payout=payout, idempotency_key=f"round:{round_pk}:settle",
            actor=Actor.system("settlement"), reason=f"{outcome}: payout {payout} of {staked} staked",
            reference_type="round", reference_id=str(round_pk),
        )  # fmt: skip
        if partner_id is not None:
            webhook_create_for_round(
                Round.objects.select_related("player__partner", "seed_pair", "table").get(pk=round_pk)
            )
    return True


def rounds_settle_due(*, older_than_s: float = 0, limit: int = 10_000) -> int:
    """Settle every resolved round (resolved at least `older_than_s` ago), each in its own short
    transaction: a settlement holds the player's wallet row only for its own entry, so rounds
    being placed meanwhile hardly wait."""
    try:
        cache.delete(SETTLE_WANTED_KEY)  # before looking: a round resolved from now on asks again
    except Exception:
        logger.warning("could not clear the settlement flag", exc_info=True)
    settled = 0
    while settled < limit:
        cutoff = timezone.now() - timedelta(seconds=older_than_s)
        due = list(
            Round.objects.filter(status=RoundStatus.RESOLVED, resolved_at__lte=cutoff)
            .order_by("resolved_at")
            .values_list("id", flat=True)[: min(BATCH, limit - settled)]
        )
        settled += sum(round_settle(round_id=round_id, skip_locked=True) for round_id in due)
        if len(due) < BATCH:
            break
    return settled


def rounds_settle_overdue(*, older_than_s: int = SWEEP_AFTER_S, limit: int = 10_000) -> int:
    """The sweeper: settle resolved rounds that no message settled in time (a lost message, a
    dead worker, the broker down for a while)."""
    settled = rounds_settle_due(older_than_s=older_than_s, limit=limit)
    if settled:
        logger.warning("sweeper settled %d overdue rounds", settled)
    return settled
