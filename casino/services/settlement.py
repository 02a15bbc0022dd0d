"""Paying out resolved rounds, exactly once, however often a settlement is attempted.

The round row lock serialises attempts, and the ledger entry's idempotency key makes a repeated
posting harmless, so a duplicate message, a retry after a killed worker (acks_late) or the sweeper
all end in one payout. Side effects (the task itself, webhooks) start only after commit.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from datetime import datetime, timedelta

from celery import current_app
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from casino import sql
from casino.services.wallets import wallet_credits_enqueue
from casino.services.webhooks import webhooks_create_for_rounds
from core.after_commit import after_commit
from core.cache import cache_window_open

logger = logging.getLogger(__name__)
SWEEP_AFTER_S = 3
# Rounds per statement. The accounts a batch pays are locked by its last step, the posting, until
# its commit, and a round being placed for one of those players waits for that. A window's rounds
# (0.25 s of them) in one batch up to 100: a player playing without pause meets a batch once per
# window rather than once per 25 rounds, and each round settled costs less; p99 at 1 and 16
# clients fell, rates rose (docs/BENCHMARKS.md, "The 1-client tail").
BATCH = 100
# The tasks (casino/tasks.py) wrap these services; a service asks for one by its name, so that the
# services never import the tasks that import them.
SETTLE_DUE_TASK = "casino.settle_due"
# Settlement is asked for by windows: the first round resolved in a window opens it (a Redis key
# with the window's end, shared by every web process) and queues one batch to run once the window
# has closed; every round resolved while it is open rides along. A batch runs after the end of
# its window, and each round looks for an open window after it committed, so the batch's query
# sees every round that rode along. A window costs one message and one batch, whatever the rate;
# a process remembers the end of a window it knows of, so a round resolved meanwhile asks Redis
# nothing at all.
SETTLE_WINDOW_KEY = "casino:settlement:window"
SETTLE_WINDOW_S = 0.25  # 0.1 cost a task and its batches 10 times a second; lag p99 stays under 0.5 s
CLOCK_MARGIN_S = 0.05  # a window's task runs this long after it closes: hosts' clocks differ a little
BROKER_PAUSE_S = 3
_broker_retry_at = 0.0  # after a failed publish, skip the broker for a while: the sweeper catches up
_known_window_ends = 0.0  # the end (Unix time) of the latest window this process knows of


def broker_task_send(name: str, *, args: list, countdown: float, what: str) -> None:
    """Queue a task after a commit, as `broker_window_send` does: never raises, and after a failed
    publish leaves the broker alone for a few seconds (the sweepers catch up), so that an outage
    costs one failed attempt per process rather than a connection timeout per request."""
    global _broker_retry_at
    if time.monotonic() < _broker_retry_at:
        return
    try:
        current_app.send_task(name, args=args, countdown=countdown)
    except Exception as exc:
        _broker_retry_at = time.monotonic() + BROKER_PAUSE_S
        logger.warning(
            "could not queue %s (%s: %s); broker left alone for %d s; beat's sweeper catches up",
            what,
            exc.__class__.__name__,
            exc,
            BROKER_PAUSE_S,
        )


def broker_window_send(
    key: str, *, seconds: float, name: str, what: str, args: list | None = None, longest_s: float | None = None
) -> float | None:
    """Open the window `key`, `seconds` from now, unless one is open (a Redis key shared by every
    process: core/cache.py `cache_window_open`), and if this call opened it queue the task `name`
    to run once the window has closed (CLOCK_MARGIN_S after its end; at most `longest_s` ahead, the
    task then comes back for the rest). Answers the open window's end (Unix time), or None when
    nothing could be queued: never raises (it runs after a commit, and the sweepers catch up);
    after a failed publish the window is closed again, for the next caller to open, and the broker
    is left alone for a few seconds, so an outage costs one failed attempt per process."""
    global _broker_retry_at
    if time.monotonic() < _broker_retry_at:
        return None
    try:
        ends, opened = cache_window_open(cache, key, seconds=seconds)
        if opened:
            wait = max(0.0, ends - time.time())
            countdown = (wait if longest_s is None else min(wait, longest_s)) + CLOCK_MARGIN_S
            current_app.send_task(name, args=args, countdown=countdown)
    except Exception as exc:  # the broker is down: placing rounds must keep working
        _broker_retry_at = time.monotonic() + BROKER_PAUSE_S
        logger.warning(
            "could not queue %s (%s: %s); broker left alone for %d s; the sweeper catches up",
            what,
            exc.__class__.__name__,
            exc,
            BROKER_PAUSE_S,
        )
        with contextlib.suppress(Exception):  # no task was queued: let the next caller open the window
            cache.delete(key)
        return None
    return ends


def settlement_enqueue(round_id: uuid.UUID) -> None:
    """Ask a worker to settle the round (it has committed): the batch of the open settlement
    window, or of one this opens. Never raises (it runs after the commit, and the sweeper is the
    safety net)."""
    global _known_window_ends
    if time.time() < _known_window_ends:  # first: the common case, and reading Celery's conf costs more
        return  # the batch of a window still open runs after it closes, and finds this round
    if current_app.conf.task_always_eager:  # no broker: settle this round now, in this process
        round_settle(round_id=round_id)
        return
    ends = broker_window_send(
        SETTLE_WINDOW_KEY, seconds=SETTLE_WINDOW_S, name=SETTLE_DUE_TASK, what=f"settlement of round {round_id}"
    )
    if ends is not None:
        _known_window_ends = ends


def _settle(*, ids: list[uuid.UUID] | None, resolved_before: datetime | None, limit: int) -> sql.Settled:
    """One transaction: settle the rounds in one statement (casino/sql/: each round's payout
    posted and the round marked settled, a seamless round's payout credited to its partner's
    seamless account and its credit recorded; the accounts locked last), then record the webhook
    events of the transfer rounds whose partner takes them. The credits go out after commit, as
    one batch (casino/services/wallets.py)."""
    with transaction.atomic():
        settled = sql.rounds_settle(ids=ids, resolved_before=resolved_before, limit=limit)
        webhooks_create_for_rounds([round_id for round_id, partner_id in settled.rounds if partner_id is not None])
        if settled.credits:
            after_commit(wallet_credits_enqueue, what=f"queueing {len(settled.credits)} credits")
    return settled


def round_settle(*, round_id: uuid.UUID | str) -> bool:
    """Pay the round's payout into the wallet through the ledger (a seamless round's on to its
    partner's wallet, by a credit). True if this call settled it.

    The statement claims the round with its row lock, skipping it if another attempt holds it
    right now; the ledger key `round:<id>:settle` makes any repeat harmless."""
    try:
        round_pk = uuid.UUID(str(round_id))
    except ValueError:
        return False
    return len(_settle(ids=[round_pk], resolved_before=timezone.now(), limit=1).rounds) == 1


def rounds_settle_due(*, older_than_s: float = 0, limit: int = 10_000) -> int:
    """Settle every resolved round (resolved at least `older_than_s` ago), a batch per short
    transaction: a batch locks the accounts it pays only by its last step and holds them to its
    commit, so rounds being placed meanwhile hardly wait; a batch that finds another one running
    leaves the rounds to it."""
    settled = 0
    while settled < limit:
        size = min(BATCH, limit - settled)
        batch = _settle(ids=None, resolved_before=timezone.now() - timedelta(seconds=older_than_s), limit=size)
        settled += len(batch.rounds)
        if len(batch.rounds) < size:
            break
    return settled


def rounds_settle_overdue(*, older_than_s: int = SWEEP_AFTER_S, limit: int = 10_000) -> int:
    """The sweeper: settle resolved rounds that no message settled in time (a lost message, a
    dead worker, the broker down for a while)."""
    settled = rounds_settle_due(older_than_s=older_than_s, limit=limit)
    if settled:
        logger.warning("sweeper settled %d overdue rounds", settled)
    return settled
