import pytest
from celery import current_app
from django.db import transaction

from core import after_commit as module
from core.after_commit import after_commit, task_enqueue

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


def test_task_enqueue_attempts_at_once_without_a_broker_and_never_raises_for_one_that_is_down(monkeypatch, caplog):
    attempted, published = [], []
    monkeypatch.setitem(current_app.conf, "task_always_eager", True)
    task_enqueue("tests.task", 7, attempt_now=lambda: attempted.append(7), what="row 7")
    assert attempted == [7]

    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    monkeypatch.setattr(current_app, "send_task", lambda name, args: published.append((name, args)))
    task_enqueue("tests.task", 8, attempt_now=lambda: attempted.append(8), what="row 8")
    assert published == [("tests.task", ["8"])] and attempted == [7]

    def down(name, args):
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app, "send_task", down)
    task_enqueue("tests.task", 9, attempt_now=lambda: attempted.append(9), what="row 9")  # no exception
    assert attempted == [7]
    assert any("row 9" in r.getMessage() for r in caplog.records if r.name == "core.after_commit")
