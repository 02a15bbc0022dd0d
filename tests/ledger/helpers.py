"""A wallet whose lines are not in the order of their entries, for the tests of the line order."""

from __future__ import annotations

import threading
import time

from django.db import connection

from ledger.models import EntryKind
from ledger.services import (
    Actor,
    Line,
    house_account,
    ledger_post,
    outside_account,
    player_accounts_open,
    wallet_deposit,
)
from tests.databases import other_connection
from tests.factories import make_player


def wallet_with_an_overtaken_entry(username: str = "overtaken"):
    """A player funded with 10,000, then a deposit X of 500 and a withdrawal Y of 300, where X took
    its entry id first, then waited on a row another transaction held, and Y (a later entry id)
    overtook it on the wallet: the wallet changed by Y first. Lines newest first: 500, -300, 10,000.
    Deterministic; needs a test database with transactions (`django_db(transaction=True)`)."""
    outside = outside_account(currency="EUR")  # made before the wallet: locked before it
    player = make_player(balance=10_000, username=username)
    wallet, _ = player_accounts_open(player=player)
    assert outside.pk < wallet.pk
    house = house_account(currency="EUR", spread_by="order-test")
    with other_connection(autocommit=False) as blocker:
        blocker.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR UPDATE", [outside.pk])
        waiting = threading.Thread(
            target=lambda: (
                wallet_deposit(player=player, amount=500, idempotency_key="order:x", actor=Actor.system("t")),
                connection.close(),
            )
        )
        waiting.start()
        deadline = time.monotonic() + 10
        while True:
            blocker.execute("SELECT pg_stat_clear_snapshot()")  # a fresh look, not this transaction's
            if blocker.execute(
                "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            ).fetchone():
                break
            assert time.monotonic() < deadline, "the deposit never waited on the lock"
            time.sleep(0.02)
        ledger_post(
            idempotency_key="order:y",
            kind=EntryKind.WITHDRAWAL,
            lines=[Line(wallet, -300), Line(house, 300)],
            actor=Actor.system("t"),
        )
        blocker.rollback()  # releases the outside account: the deposit goes on
        waiting.join(timeout=10)
    return player, wallet
