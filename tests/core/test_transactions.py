"""core/transactions.py: a step's savepoint, and none where the caller rolls everything back; a connection given back for a wait."""

import types

import psycopg
import pytest
from django.db import OperationalError, connection, transaction
from django.test.utils import CaptureQueriesContext

import core.transactions
from core.transactions import (
    CONFLICT_ATTEMPTS,
    atomic_step,
    connection_release_for_wait,
    refusals_roll_back_everything,
    retried_on_conflict,
    retried_on_lost_connection,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _statements_of(block):
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        block()
    return [q["sql"].split(" ", 1)[0] for q in captured.captured_queries]


def test_a_nested_step_is_a_savepoint_so_a_refusal_leaves_the_callers_transaction_usable():
    def caller():
        with pytest.raises(ValueError), atomic_step():
            raise ValueError("refused")
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # still usable

    assert _statements_of(caller) == ["BEGIN", "SAVEPOINT", "ROLLBACK", "RELEASE", "SELECT", "COMMIT"]


def test_under_refusals_roll_back_everything_a_step_takes_no_savepoint():
    def caller():
        with refusals_roll_back_everything(), atomic_step(), connection.cursor() as cursor:
            cursor.execute("SELECT 1")

    assert _statements_of(caller) == ["BEGIN", "SELECT", "COMMIT"]
    with pytest.raises(ValueError), transaction.atomic(), refusals_roll_back_everything(), atomic_step():
        raise ValueError("refused")  # the whole transaction rolls back, as its caller meant


@pytest.mark.parametrize("pooled", [True, False])
def test_a_connection_is_given_back_for_a_wait_only_to_a_pool_and_outside_a_transaction(monkeypatch, pooled):
    closed = []
    options = {"pool": {"max_size": 2}} if pooled else {}  # as DATABASE_POOL=true configures it, or not
    fake = types.SimpleNamespace(
        in_atomic_block=True, settings_dict={"OPTIONS": options}, close=lambda: closed.append(True)
    )
    monkeypatch.setattr(core.transactions, "connection", fake)
    connection_release_for_wait()
    assert closed == []  # inside a transaction: never
    fake.in_atomic_block = False
    connection_release_for_wait()
    assert closed == ([True] if pooled else [])


def _conflict(sqlstate_error):
    error = OperationalError(str(sqlstate_error))
    error.__cause__ = sqlstate_error
    return error


@pytest.mark.parametrize("cause", [psycopg.errors.DeadlockDetected("d"), psycopg.errors.SerializationFailure("s")])
def test_a_transaction_lost_to_another_is_run_again_a_few_times_then_its_error_raised(cause):
    runs = []

    def run():
        runs.append(1)
        raise _conflict(cause)

    with pytest.raises(OperationalError):
        retried_on_conflict(run, what="test")
    assert len(runs) == CONFLICT_ATTEMPTS
    runs.clear()
    assert retried_on_conflict(lambda: runs.append(1) or (len(runs) == 1 and run()) or "done", what="t") == "done"


def test_other_errors_and_transactions_nested_in_a_callers_are_not_run_again():
    runs = []

    def lost():
        runs.append(1)
        raise _conflict(psycopg.errors.DeadlockDetected("d"))

    def other():
        runs.append(1)
        raise _conflict(psycopg.errors.UniqueViolation("u"))

    with pytest.raises(OperationalError):
        retried_on_conflict(other, what="test")
    with transaction.atomic(), pytest.raises(OperationalError):
        retried_on_conflict(lost, what="test")  # only the caller can run its whole transaction again
    assert len(runs) == 2


def test_a_transaction_whose_connection_was_lost_runs_once_more_on_a_new_one():
    runs = []

    def run():
        runs.append(connection.connection)
        if len(runs) == 1:
            raise _conflict(psycopg.errors.AdminShutdown("terminating connection due to administrator command"))
        return "recorded"

    connection.ensure_connection()
    assert retried_on_lost_connection(run, what="test") == "recorded"
    assert len(runs) == 2 and runs[0] is not runs[1]  # a new connection
    runs.clear()
    with transaction.atomic(), pytest.raises(OperationalError):
        retried_on_lost_connection(run, what="test")  # a caller's transaction is lost with it: not here
