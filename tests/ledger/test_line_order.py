"""Wallet lines come in the order the balance changed (issue #16 item 4), on real PostgreSQL: each
line's `balance_after - amount` is the next older line's `balance_after`; so in the API, the web
wallet, the back office's player and account pages and the account's CSV export."""

import csv
import io
import itertools
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from django.db import connection
from django.urls import reverse

from accounts.models import TransferDirection
from accounts.partners import partner_player_upsert, partner_transfer
from accounts.services import partner_create
from accounts.tokens import token_issue
from core.errors import InsufficientFunds
from ledger.selectors import account_lines
from ledger.verification import ledger_verify
from tests.factories import StaffFactory
from tests.ledger.helpers import wallet_with_an_overtaken_entry

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


def test_an_entry_that_waited_for_the_wallet_is_listed_after_one_that_overtook_it():
    """The wallet changed by the later entry first, so that entry is the older line."""
    _, wallet = wallet_with_an_overtaken_entry()
    lines = as_dicts(wallet)
    assert [line["amount"] for line in lines] == [500, -300, 10_000]
    assert_chained(lines)


OVERTAKEN = ["€5.00", "-€3.00", "€100.00"]  # newest first, in the order the balance changed


def amounts_shown(page: str) -> list[str]:
    """The amount column of a lines table in the back office (each row: when, kind, amount, ...)."""
    return re.findall(r"<tr><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>", page)


def minor(decimal_text: str) -> int:
    """An exported amount (a decimal of major units, ledger/money.py `money_decimal`) in minor units."""
    return int(Decimal(decimal_text) * 100)


def test_every_list_of_an_overtaken_wallets_lines_is_in_the_order_the_balance_changed(client):
    player, wallet = wallet_with_an_overtaken_entry()
    api = client.get(
        "/api/v1/wallet/transactions/", HTTP_AUTHORIZATION=f"Token {token_issue(user=player.user)}"
    ).json()["results"]
    assert [line["amount"] for line in api] == [500, -300, 10_000]
    assert_chained(api)

    client.force_login(player.user)
    web = client.get(reverse("web:wallet")).content.decode()
    balances = re.findall(r'<td class="num (?:up|down)">[^<]*</td>\s*<td class="num">([^<]*)</td>', web)
    assert balances == ["€102.00", "€97.00", "€100.00"]

    client.force_login(StaffFactory(is_superuser=True))
    player_page = client.get(reverse("admin:accounts_player_change", args=[player.pk])).content.decode()
    assert amounts_shown(player_page) == OVERTAKEN
    account_page = client.get(reverse("admin:ledger_account_change", args=[wallet.pk])).content.decode()
    assert amounts_shown(account_page) == OVERTAKEN
    assert reverse("admin:ledger_account_lines_csv", args=[wallet.pk]) in account_page

    exported = client.get(reverse("admin:ledger_account_lines_csv", args=[wallet.pk]))
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert [(row["amount"], row["currency"]) for row in rows] == [("5.00", "EUR"), ("-3.00", "EUR"), ("100.00", "EUR")]
    assert_chained([{"amount": minor(r["amount"]), "balance_after": minor(r["balance_after"])} for r in rows])
    assert int(rows[0]["entry"]) < int(rows[1]["entry"])  # the order is the balance's, not the entries'


def test_an_accounts_csv_export_needs_the_right_to_view_the_ledger(client):
    _, wallet = wallet_with_an_overtaken_entry()
    url = reverse("admin:ledger_account_lines_csv", args=[wallet.pk])
    assert client.get(url).status_code == 302  # to the back office's sign-in
    client.force_login(StaffFactory())  # staff without a role
    assert client.get(url).status_code == 403
    client.force_login(StaffFactory(is_superuser=True))
    assert client.get(reverse("admin:ledger_account_lines_csv", args=[wallet.pk + 10_000])).status_code == 404


def test_fifty_concurrent_transfers_out_of_one_wallet_chain_in_the_api(client):
    partner, _ = partner_create(name="Order Casino")
    player, _ = partner_player_upsert(partner=partner, external_id="p-1", currency="EUR")
    partner_transfer(partner=partner, player=player, direction=TransferDirection.IN, amount=4_000, reference="fund")
    barrier = threading.Barrier(16)

    def transfer_out(i):
        try:
            if i < 16:
                barrier.wait(timeout=10)
            return partner_transfer(
                partner=partner, player=player, direction=TransferDirection.OUT, amount=100, reference=f"out-{i}"
            )
        except InsufficientFunds as exc:
            return exc
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(transfer_out, range(50)))
    assert sum(not isinstance(r, Exception) for r in results) == 40  # 4,000 in, 100 each
    response = client.get(
        "/api/v1/wallet/transactions/?limit=500", HTTP_AUTHORIZATION=f"Token {token_issue(user=player.user)}"
    )
    assert response.status_code == 200
    lines = response.json()["results"]
    assert len(lines) == 41 and lines[0]["balance_after"] == 0
    assert_chained(lines)
    assert ledger_verify().ok
