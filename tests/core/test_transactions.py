"""core/transactions.py: a step's savepoint, and none where the caller rolls everything back."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from core.transactions import atomic_step, refusals_roll_back_everything

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
