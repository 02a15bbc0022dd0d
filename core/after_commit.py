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
