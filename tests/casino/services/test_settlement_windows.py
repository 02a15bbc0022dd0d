"""Settlement is asked for by windows (casino/services/settlement.py): the rounds resolved while a
window is open ride on one batch, queued to run once the window has closed."""

import pytest
from django.core.cache import cache

from casino.services import settlement
from casino.services.rounds import round_place
from core.actors import Actor
from tests.casino.helpers import set_next_round
from tests.factories import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(eager_celery, monkeypatch):
    eager_celery.conf.task_always_eager = False
    sent = []
    monkeypatch.setattr(eager_celery, "send_task", lambda name, **options: sent.append((name, options)))
    cache.delete(settlement.SETTLE_WINDOW_KEY)
    return sent


def test_rounds_resolved_in_one_window_queue_one_batch_after_it_closes(
    queued, table, django_capture_on_commit_callbacks, monkeypatch
):
    # A window long enough for three placements on a busy machine (the real one is a quarter second).
    monkeypatch.setattr(settlement, "SETTLE_WINDOW_S", 5.0)
    player = make_player(balance=10_000)
    for _ in range(3):
        set_next_round(player, tie=False)
        with django_capture_on_commit_callbacks(execute=True):
            round_place(player=player, table_id=table.pk, main_bet=100, actor=Actor.player(player))
    assert len(queued) == 1
    name, options = queued[0]
    assert name == settlement.SETTLE_DUE_TASK
    assert (
        settlement.SETTLE_WINDOW_S <= options["countdown"] <= settlement.SETTLE_WINDOW_S + 2 * settlement.CLOCK_MARGIN_S
    )


def test_a_process_that_knows_of_an_open_window_asks_redis_nothing(queued, monkeypatch):
    settlement.settlement_enqueue("a")  # opens the window
    monkeypatch.setattr(settlement, "cache_window_open", lambda *a, **k: pytest.fail("Redis asked"))
    settlement.settlement_enqueue("b")
    assert len(queued) == 1


def test_a_window_another_process_opened_is_ridden_too(queued):
    cache.set(settlement.SETTLE_WINDOW_KEY, "9999999999.0", timeout=5)  # another web process's window
    settlement.settlement_enqueue("a")
    assert queued == []


def test_a_failed_publish_closes_the_window_for_the_next_round(queued, eager_celery, monkeypatch):
    def refuse(name, **options):
        raise ConnectionError("broker down")

    monkeypatch.setattr(eager_celery, "send_task", refuse)
    settlement.settlement_enqueue("a")  # logged, never raised
    assert cache.get(settlement.SETTLE_WINDOW_KEY) is None
