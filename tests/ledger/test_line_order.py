"""Wallet lines come in the order the balance changed (issue #16 item 4), on real PostgreSQL: each
line's `balance_after - amount` is the next older line's `balance_after`."""

import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.db import connection

from accounts.models import TransferDirection
from accounts.partners import partner_player_upsert, partner_transfer
from accounts.services import partner_create
from accounts.tokens import token_issue
from core.errors import InsufficientFunds
from ledger.models import EntryKind
from ledger.selectors import account_lines
from ledger.services import (
    Actor,
    Line,
    house_account,
    ledger_post,
    outside_account,
    player_accounts_open,
    wallet_deposit,
)
from ledger.verification import ledger_verify
from tests.factories import make_player

pytestmark = [pytest.mark.django_db(transaction=True)]


def assert_chained(lines: list[dict]) -> None:
    """`lines` newest first, as the API gives them."""
    for newer, older in itertools.pairwise(lines):
        assert newer["balance_after"] - newer["amount"] == older["balance_after"], (newer, older)
    assert lines[-1]["balance_after"] == lines[-1]["amount"]  # the first line starts from zero


def as_dicts(account) -> list[dict]:
    return [
        {"amount": line.signed_amount, "balance_after": line.balance_after} for line in account_lines(account=account)
    ]


def other_connection():
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"], autocommit=False
    )


def test_an_entry_that_waited_for_the_wallet_is_listed_after_one_that_overtook_it():
    """Deterministic: entry X takes its id, then waits on a row another transaction holds; entry Y
    (a later id) overtakes it on the wallet. The wallet changed by Y first, so Y is the older line."""
    outside = outside_account(currency="EUR")  # made before the wallet: locked before it
    player = make_player(balance=10_000)
    wallet, _ = player_accounts_open(player=player)
    assert outside.pk < wallet.pk
    house = house_account(currency="EUR", spread_by="order-test")
    with other_connection() as blocker:
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
            idempotency_key="order:y", kind=EntryKind.WITHDRAWAL, lines=[Line(wallet, -300), Line(house, 300)],
            actor=Actor.system("t"),
        )  # fmt: skip
        blocker.rollback()  # releases the outside account: the deposit goes on
        waiting.join(timeout=10)
    lines = as_dicts(wallet)
    assert [line["amount"] for line in lines] == [500, -300, 10_000]
    assert_chained(lines)


def test_fifty_concurrent_transfers_out_of_one_wallet_chain_in_the_api(client):
    partner, _ = partner_create(name="Order Casino")
    player, _ = partner_player_upsert(partner=partner, external_id="p-1", currency="EUR")
    partner_transfer(partner=partner, player=player, direction=TransferDirection.IN, amount=4_000, reference="fund")
    barrier = threading.Barrier(16)

    def transfer_out(i):
        try:
            if i < 16:
                barrier.wait(timeout=10)
            return partner_transfer(partner=partner, player=player, direction=TransferDirection.OUT, amount=100, reference=f"out-{i}")
        except InsufficientFunds as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(transfer_out, range(50)))
    assert sum(not isinstance(r, Exception) for r in results) == 40  # 4,000 in, 100 each
    response = client.get("/api/v1/wallet/transactions/?limit=500", HTTP_AUTHORIZATION=f"Token {token_issue(user=player.user)}")
    assert response.status_code == 200
    lines = response.json()["results"]
    assert len(lines) == 41 and lines[0]["balance_after"] == 0
    assert_chained(lines)
    assert ledger_verify().ok
