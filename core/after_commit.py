"""Side effects that start once a transaction commits, and never fail the request that committed.

Queueing a settlement, a webhook or any other follow-up happens after the money has moved; if it
then fails (the broker down, a bug), the caller must still get the answer for what committed,
or a client retrying with a new key would place twice. Every such follow-up has a sweeper that
catches up, so a failure here is logged and counted (readiness shows the count), never raised.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)
failures = 0  # per process; shown by /healthz/ready


def after_commit(side_effect: Callable[[], object], *, what: str) -> None:
    """Run `side_effect` when the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(functools.partial(_run, side_effect, what))


def _run(side_effect: Callable[[], object], what: str) -> None:
    global failures
    try:
        side_effect()
    except Exception:
        failures += 1
        logger.exception("after commit: %s failed; its sweeper will catch up", what)


def task_enqueue(task_name: str, object_id, *, attempt_now: Callable[[], object], what: str) -> None:
    """Ask a worker for the task `task_name` on `object_id` (an outbox row: a webhook delivery, a
    wallet call); without a broker (eager), `attempt_now` in this process. A failed publish is
    logged, never raised: the row's sweeper attempts it."""
    if current_app.conf.task_always_eager:
        attempt_now()
        return
    try:
        current_app.send_task(task_name, args=[str(object_id)])
    except Exception:
        logger.warning("could not queue %s; its sweeper will attempt it", what, exc_info=True)
