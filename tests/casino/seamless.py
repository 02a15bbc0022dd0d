"""Fixtures of the seamless-wallet tests: a partner whose wallet is a real HTTP server on this
machine (tests/wallet_server.py: it keeps balances, checks our signatures and answers repeated
transaction ids with their first result), and a partner client signing requests to our API."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.utils import timezone

from accounts.models import Partner
from accounts.services import partner_create
from casino.models import WalletCall
from casino.services.wallets import wallet_calls_send_due
from tests.casino.helpers import PartnerClient
from tests.wallet_server import PartnerWallet

BASE = "/api/v1/partner/players"
PLAYER = "ext-1"
SECRET = "seamless-test-secret"


@pytest.fixture
def wallet(settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True  # the partner's wallet listens on this machine
    settings.WALLET_TIMEOUT_S = 1.0  # API.md's 5 s, shortened: a timed-out call costs the test 1 s
    with PartnerWallet(secret=SECRET) as server:
        yield server


@pytest.fixture
def seamless(wallet, client, table):
    """(partner, its signing client, the wallet), the wallet's secret the partner's, one player
    made through the API with 1,000.00 EUR at the partner."""
    partner, _ = partner_create(name="Seamless Casino", wallet_url=wallet.url)
    Partner.objects.filter(pk=partner.pk).update(secret=SECRET)  # the wallet was started with it
    partner.refresh_from_db()
    api = PartnerClient(client, partner, SECRET)
    assert api.put(f"{BASE}/{PLAYER}/", {"currency": "EUR"}).status_code == 201
    wallet.set_balance(player=PLAYER, currency="EUR", amount=100_000)
    return partner, api, wallet


def place(api, *, key: str, table, main_bet: int = 1_000, tie_bet: int = 0, player: str = PLAYER):
    return api.post(
        f"{BASE}/{player}/rounds/",
        {"table": table.pk, "main_bet": main_bet, "tie_bet": tie_bet},
        HTTP_IDEMPOTENCY_KEY=key,
    )


def calls_named(wallet, name: str) -> list:
    return [call for call in wallet.calls if call.name == name]


def retries_due_now() -> int:
    """Every pending credit and rollback due now (as if their backoff had passed), then swept."""
    WalletCall.objects.filter(status="pending").exclude(kind="debit").update(next_attempt_at=timezone.now())
    return wallet_calls_send_due()


def debits_given_up_now() -> int:
    """Every pending debit's lease over (its request died), then swept."""
    WalletCall.objects.filter(status="pending", kind="debit").update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )
    return wallet_calls_send_due()


def in_threads(count: int, work) -> list:
    """`work(n, client)` in `count` threads at once, each with its own database connection."""
    results: list = [None] * count
    start = threading.Barrier(count)

    def run(n: int) -> None:
        try:
            start.wait()
            results[n] = work(n, Client())
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert connection.vendor == "postgresql"
    return results
