import pytest
from django.db import transaction

from core import after_commit as module
from core.after_commit import after_commit

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_side_effect_runs_after_the_commit_and_its_failure_is_logged_not_raised(caplog):
    ran = []

    def failing():
        ran.append("failing")
        raise ConnectionError("broker down")

    before = module.failures
    with transaction.atomic():
        after_commit(failing, what="queueing something")
        after_commit(lambda: ran.append("next"), what="the next side effect")
        assert ran == []  # nothing before the commit
    assert ran == ["failing", "next"]  # one failing does not stop the others
    assert module.failures == before + 1
    record = next(r for r in caplog.records if r.name == "core.after_commit")
    assert record.levelname == "ERROR" and "queueing something" in record.getMessage() and record.exc_info


def test_nothing_runs_when_the_transaction_rolls_back():
    ran = []
    with pytest.raises(RuntimeError), transaction.atomic():
        after_commit(lambda: ran.append(1), what="x")
        raise RuntimeError
    assert ran == []
