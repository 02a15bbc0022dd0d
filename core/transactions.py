"""Transactions of services that may refuse halfway.

A service step that can refuse after it has written (a stake refused for funds, a limit found
broken) runs in `atomic_step()`: a savepoint when it is nested in a caller's transaction, so
that the refusal leaves the caller's transaction usable and undoes only the step. A caller that
undoes the whole transaction on any refusal anyway says so with `refusals_roll_back_everything()`
(core/idempotency.py does, for every API request that moves money): its steps then need no
savepoint, and the two statements each savepoint costs are saved on every such request.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection, transaction

_whole_transaction_rolls_back = ContextVar("whole_transaction_rolls_back", default=False)


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
