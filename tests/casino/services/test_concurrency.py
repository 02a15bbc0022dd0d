"""Simultaneous requests on real PostgreSQL: no double spend, settlement exactly once."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from accounts.tokens import token_issue
from casino.models import Round, RoundStatus
from casino.services.rounds import round_place
from casino.services.settlement import round_settle
from core.actors import Actor
from ledger.models import JournalEntry
from ledger.selectors import player_wallet_summary
from ledger.verification import ledger_verify
from tests.casino.helpers import set_next_round
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db(transaction=True)


def run_concurrently(count, work, workers=16):
    barrier = threading.Barrier(workers)

    def call(i):
        try:
            if i < workers:
                barrier.wait(timeout=20)
            return work(i)
        except Exception as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(call, range(count)))


def test_fifty_simultaneous_rounds_from_a_wallet_that_affords_ten(eager_celery):
    # Settlement held back (no broker): the 50 rounds race for the stakes alone.
    eager_celery.conf.task_always_eager = False
    eager_celery.conf.broker_url = "redis://127.0.0.1:1/0"
    table = TableFactory(min_bet=100, max_bet=100_000, bet_step=100, max_tie_bet=0)
    player = make_player(balance=10_000, username="racer")
    token = token_issue(user=player.user)

    def place(i):
        response = Client().post(
            "/api/v1/rounds/",
            {"table": str(table.pk), "main_bet": 1000},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Token {token}",
            HTTP_IDEMPOTENCY_KEY=f"race-{i}",
        )
        return response.status_code, response.json().get("code")

    results = run_concurrently(50, place)
    assert sorted(results, key=str).count((201, None)) == 10, results
    assert results.count((422, "insufficient_funds")) == 40, results
    assert Round.objects.count() == 10
    nonces = sorted(Round.objects.values_list("nonce", flat=True))
    assert nonces == list(range(10))  # every round its own nonce, none skipped
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 0, "in_play": 10_000}
    assert ledger_verify().ok


def test_a_settlement_run_twice_and_concurrently_pays_once():
    table = TableFactory()
    player = make_player(balance=10_000, username="twice")
    set_next_round(player, tie=False, player_wins=True)
    round_ = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    connection.close()
    # The eager task already settled it on commit; run it again, and 16 times at once.
    results = run_concurrently(16, lambda _: round_settle(round_id=round_.id))
    assert round_settle(round_id=round_.id) is False
    assert results.count(True) <= 1 and all(r in (True, False) for r in results), results
    assert JournalEntry.objects.filter(idempotency_key=f"round:{round_.id}:settle").count() == 1
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 11_000, "in_play": 0}
    assert Round.objects.get(pk=round_.id).status == RoundStatus.SETTLED
    assert ledger_verify().ok


def test_concurrent_settlement_of_an_unsettled_round_pays_once(eager_celery):
    eager_celery.conf.task_always_eager = False
    eager_celery.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens: the message is lost
    table = TableFactory()
    player = make_player(balance=10_000, username="lost-message")
    set_next_round(player, tie=False, player_wins=False)
    round_ = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    assert Round.objects.get(pk=round_.id).status == RoundStatus.RESOLVED
    results = run_concurrently(16, lambda _: round_settle(round_id=round_.id))
    assert results.count(True) == 1, results
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 9_000, "in_play": 0}
    assert ledger_verify().ok


def test_a_batch_leaves_a_round_another_attempt_is_settling_and_settles_the_rest(eager_celery):
    import psycopg

    from casino.services.settlement import rounds_settle_due

    eager_celery.conf.task_always_eager = False
    eager_celery.conf.broker_url = "redis://127.0.0.1:1/0"
    table = TableFactory()
    player = make_player(balance=10_000, username="batched")
    placed = []
    for _ in range(2):
        set_next_round(player, tie=False, player_wins=True)
        placed.append(round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player)))
    busy, free = placed
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        password=settings["PASSWORD"] or None,
    ) as other:
        other.execute("SELECT id FROM casino_round WHERE id = %s FOR UPDATE", [busy.id])  # another attempt
        assert rounds_settle_due() == 1  # at once: it does not wait for the other attempt
        other.rollback()
    assert Round.objects.get(pk=free.id).status == RoundStatus.SETTLED
    assert Round.objects.get(pk=busy.id).status == RoundStatus.RESOLVED
    assert rounds_settle_due() == 1
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 12_000, "in_play": 0}
    assert ledger_verify().ok
