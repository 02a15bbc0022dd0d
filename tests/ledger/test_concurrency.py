"""Many writers at once on real PostgreSQL: no overdraft, no lost update, exactly-once keys."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from core.actors import Actor
from core.errors import InsufficientFunds
from ledger.models import EntryKind, JournalEntry
from ledger.selectors import player_wallet_summary
from ledger.services import Line, house_account, ledger_post, player_accounts_open
from ledger.verification import ledger_verify
from tests.factories import make_player

pytestmark = pytest.mark.django_db(transaction=True)


def run_concurrently(count, work, workers=16):
    barrier = threading.Barrier(min(count, workers))

    def call(i):
        try:
            if i < workers:
                barrier.wait(timeout=10)
            return work(i)
        except Exception as exc:  # collected and asserted on by the test
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(call, range(count)))


def test_concurrent_debits_never_overdraw_and_exactly_the_affordable_number_succeed():
    player = make_player(balance=1_000)
    wallet, _ = player_accounts_open(player=player)

    def lose_100(i):
        house = house_account(currency="EUR", spread_by=f"c{i}")
        return ledger_post(
            idempotency_key=f"debit:{i}",
            kind=EntryKind.SETTLEMENT,
            lines=[Line(wallet, -100), Line(house, 100)],
            actor=Actor.system("t"),
        )

    results = run_concurrently(50, lose_100)
    succeeded = [r for r in results if isinstance(r, JournalEntry)]
    refused = [r for r in results if isinstance(r, InsufficientFunds)]
    assert len(succeeded) == 10 and len(refused) == 40, results
    assert player_wallet_summary(player=player)["balance"] == 0
    assert ledger_verify().ok


def test_a_key_retried_concurrently_posts_once():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)

    def same_stake(_):
        return ledger_post(
            idempotency_key="one-stake",
            kind=EntryKind.STAKE,
            lines=[Line(wallet, -250), Line(in_play, 250)],
            actor=Actor.system("t"),
        )

    results = run_concurrently(16, same_stake)
    assert all(isinstance(r, JournalEntry) for r in results), results
    assert len({r.pk for r in results}) == 1
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 750, "in_play": 250}


def test_no_lost_update_under_mixed_credits_and_debits():
    player = make_player(balance=10_000)
    wallet, _ = player_accounts_open(player=player)

    def move(i):
        amount = 70 if i % 2 else -50
        house = house_account(currency="EUR", spread_by=f"m{i}")
        return ledger_post(
            idempotency_key=f"mixed:{i}",
            kind=EntryKind.SETTLEMENT,
            lines=[Line(wallet, amount), Line(house, -amount)],
            actor=Actor.system("t"),
        )

    results = run_concurrently(64, move)
    assert all(isinstance(r, JournalEntry) for r in results), results
    assert player_wallet_summary(player=player)["balance"] == 10_000 + 32 * 70 - 32 * 50
    assert ledger_verify().ok


def test_verification_is_consistent_while_money_moves():
    players = [make_player(balance=100_000) for _ in range(4)]
    accounts = [player_accounts_open(player=p) for p in players]
    stop = threading.Event()

    def keep_posting(i):
        wallet, in_play = accounts[i]
        n = 0
        try:
            while not stop.is_set():
                lines = [Line(wallet, -1), Line(in_play, 1)] if n % 2 == 0 else [Line(in_play, -1), Line(wallet, 1)]
                ledger_post(
                    idempotency_key=f"moving:{i}:{n}", kind=EntryKind.STAKE, lines=lines, actor=Actor.system("t")
                )
                n += 1
        finally:
            connection.close()
        return n

    with ThreadPoolExecutor(max_workers=4) as pool:
        writers = [pool.submit(keep_posting, i) for i in range(4)]
        try:
            runs = [ledger_verify(seal_first=False) for _ in range(5)]
        finally:
            stop.set()
        moved = sum(w.result() for w in writers)
    assert moved > 0
    assert all(run.ok for run in runs), [run.summary for run in runs if not run.ok][:1]
