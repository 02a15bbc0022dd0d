"""Transactions of services that may refuse halfway.

A service step that can refuse after it has written (a stake refused for funds, a limit found
broken) runs in `atomic_step()`: a savepoint when it is nested in a caller's transaction, so
that the refusal leaves the caller's transaction usable and undoes only the step. A caller that
undoes the whole transaction on any refusal anyway says so with `refusals_roll_back_everything()`
(core/idempotency.py does, for every API request that moves money): its steps then need no
savepoint, and the two statements each savepoint costs are saved on every such request.

Work whose statements each commit alone (a round placed by the API: core/idempotency.py) reads
without locking, and its last statement writes only if what it read is still so; otherwise it
writes nothing and raises `ReadChangedBeforeWrite`, and the work is run again in a transaction
that locks what it reads.

Paths that move money lock in one order (docs/ARCHITECTURE.md "Lock order"), so they do not
deadlock; a transaction that still loses a deadlock (or a serialization failure) is run again by
`retried_on_conflict`, a few times, before its error reaches the caller.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction

logger = logging.getLogger(__name__)
T = TypeVar("T")
# SQLSTATEs of a transaction PostgreSQL rolled back because of another one: running it again can succeed.
CONFLICTS = {"40P01": "a deadlock", "40001": "a serialization failure"}
CONFLICT_ATTEMPTS = 3

_whole_transaction_rolls_back = ContextVar("whole_transaction_rolls_back", default=False)


class ReadChangedBeforeWrite(Exception):
    """Work whose statements each commit alone found, at its write, that another transaction had
    changed what it read (or lost a deadlock to one): nothing was written; run it again, locking."""


def atomic_step():
    """A transaction of its own, or, nested, a savepoint (none under `refusals_roll_back_everything`)."""
    return transaction.atomic(savepoint=not _whole_transaction_rolls_back.get())


@contextmanager
def refusals_roll_back_everything() -> Iterator[None]:
    """Within: the caller rolls its whole transaction back when a step refuses, so steps need no savepoint."""
    token = _whole_transaction_rolls_back.set(True)
    try:
        yield
    finally:
        _whole_transaction_rolls_back.reset(token)


def connection_release_for_wait() -> None:
    """Before waiting on something outside (a seamless partner's wallet), with no transaction open:
    with a connection pool (settings DATABASE_POOL), give the connection back, so a thread that
    waits holds none and the next query takes one again; with one persistent connection per
    thread, keep it (opening a new one would cost more than most waits)."""
    if connection.in_atomic_block or not connection.settings_dict.get("OPTIONS", {}).get("pool"):
        return
    connection.close()


def retried_on_lost_connection(run: Callable[[], T], *, what: str) -> T:
    """`run()` (a whole transaction of its own, which may run twice: it must find what a first
    run committed) once more on a new connection when the one it had was lost (a restart of
    PostgreSQL, a failover, a terminated backend), as after a wait outside the database."""
    try:
        return run()
    except (OperationalError, InterfaceError) as exc:
        if connection.in_atomic_block or transaction_conflict(exc) is not None:
            raise
        logger.warning("%s: the database connection was lost (%s); once more on a new one", what, exc)
        connection.close()
        return run()


def transaction_conflict(exc: BaseException) -> str | None:
    """What a database error was if PostgreSQL rolled the transaction back for another one (a
    deadlock, a serialization failure); None for any other error."""
    if not isinstance(exc, DatabaseError):
        return None
    return CONFLICTS.get(getattr(exc.__cause__, "sqlstate", None))


def retried_on_conflict(run: Callable[[], T], *, what: str, attempts: int = CONFLICT_ATTEMPTS) -> T:
    """`run()` (a whole transaction of its own), run again after a short random pause when it lost
    a deadlock or a serialization failure, at most `attempts` times in all; the last failure is
    raised. Nested in a caller's transaction nothing can be retried here: the error is raised."""
    for attempt in range(1, attempts + 1):
        try:
            return run()
        except DatabaseError as exc:
            conflict = transaction_conflict(exc)
            if conflict is None or connection.in_atomic_block or attempt == attempts:
                if conflict is not None:
                    logger.error("%s: %s in each of %d attempts; giving up", what, conflict, attempt)
                raise
            logger.warning("%s: %s (attempt %d of %d); running it again", what, conflict, attempt, attempts)
            time.sleep(random.uniform(0.005, 0.03) * attempt)
    raise AssertionError("unreachable")
