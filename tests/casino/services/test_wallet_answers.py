"""Every answer of a seamless partner's wallet is checked before anything of it is believed
(casino/services/wallets.py `wallet_answer_problem`): a balance beyond reason or below zero, a
body with a NUL or that is not a JSON object, echoed fields that are not the call's. A debit so
answered is `503 wallet_unavailable` with the rollback (API.md "any other answer"), never a 500;
a balance so answered is not shown; a credit so answered is not acknowledged and is sent again."""

from __future__ import annotations

import pytest

from casino.models import Round, RoundStatus, WalletCall
from casino.services.wallets import MAX_PARTNER_BALANCE, wallet_answer_problem
from core.outbound import OutboundAnswer
from ledger.models import JournalEntry
from ledger.verification import ledger_verify
from tests.casino.helpers import set_next_round
from tests.casino.seamless import BASE, PLAYER, calls_named, place, retries_due_now
from tests.casino.services.test_seamless import _player
from tests.wallet_server import Fault

pytestmark = pytest.mark.django_db(transaction=True)

SENT = {
    "transaction_id": "abc12345-stake",
    "player": PLAYER,
    "currency": "EUR",
    "amount": 1_000,
    "round": "0b7f9d56-3f21-4bb2-a4a2-0d3b1c2c9e11",
    "kind": "stake",
}


def answered(body: bytes, status: int = 200) -> OutboundAnswer:
    return OutboundAnswer(status, body, "" if 200 <= status < 300 else f"HTTP {status}", False, 3)


@pytest.mark.parametrize(
    "body",
    [
        b'{"balance": 99000}',
        b'{"balance": 0, "currency": "EUR", "amount": 1000, "transaction_id": "abc12345-stake", "extra": [1]}',
        b'{"balance": %d}' % MAX_PARTNER_BALANCE,
    ],
)
def test_a_right_answer_is_believed(body):
    assert wallet_answer_problem(answered(body), sent=SENT) == ""


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"balance": 1e26}', "integer balance"),
        (b'{"balance": %d}' % 10**26, "from 0 to"),
        (b'{"balance": -1}', "from 0 to"),
        (b'{"balance": true}', "integer balance"),
        (b'{"balance": "99000"}', "integer balance"),
        (b'{"balance": 99000, "balance": 5}', "JSON object"),
        (b'{"balance": NaN}', "JSON object"),
        (b'{"balance": 99000}\x00', "JSON object"),
        (b'{"balance": 99000, "note": "\x00"}', "JSON object"),
        (b"\xff\xfe{}", "JSON object"),
        (b"[99000]", "JSON object"),
        (b"", "JSON object"),
        (b'{"balance": 99000, "currency": "USD"}', "currency"),
        (b'{"balance": 99000, "amount": 2000}', "amount"),
        (b'{"balance": 99000, "amount": 1000.0}', "amount"),
        (b'{"balance": 99000, "transaction_id": "someone-else"}', "transaction_id"),
        (b'{"balance": 99000, "player": "ext-2"}', "player"),
    ],
)
def test_any_other_answer_is_no_answer(body, problem):
    assert problem in wallet_answer_problem(answered(body), sent=SENT)


def test_a_201_or_a_500_is_no_answer_whatever_its_body():
    assert wallet_answer_problem(answered(b'{"balance": 1}', 201), sent=SENT)
    assert wallet_answer_problem(answered(b'{"balance": 1}', 500), sent=SENT) == "HTTP 500"


@pytest.mark.parametrize(
    "answer",
    [
        b'{"balance": 100000000000000000000000000}',
        b'{"balance": 1e26}',
        b'{"balance": 99000}\x00',
        b'{"balance": -5}',
        b'{"balance": 99000, "currency": "USD"}',
        b'{"balance": 99000, "amount": 1}',
        b'{"balance": 99000, "transaction_id": "not-this-one"}',
        b"<html>gateway</html>",
    ],
)
def test_a_debit_answered_wrongly_is_503_and_rolled_back_never_a_500(seamless, table, answer):
    _partner, api, wallet = seamless
    wallet.fail(Fault.WRONG_ANSWER, calls={"debit"}, times=1, answer=answer)  # the debit happened
    response = place(api, key="r-1", table=table)
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "wallet_unavailable"
    assert not Round.objects.exists() and not JournalEntry.objects.exists()
    debit = WalletCall.objects.get(kind="debit")
    assert debit.status == "failed" and debit.partner_balance is None and debit.last_error
    assert "\x00" not in debit.last_answer
    assert WalletCall.objects.get(kind="rollback").status == "acknowledged"
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000  # debited, then rolled back
    again = place(api, key="r-1", table=table)  # the stored answer, as for any 503
    assert (again.status_code, again.json()["code"]) == (503, "wallet_unavailable")


@pytest.mark.parametrize(
    "answer", [b'{"balance": -5}', b'{"balance": 1e26}', b'{"balance": 5, "currency": "USD"}', b'{"balance": 5}\x00']
)
def test_a_balance_answered_wrongly_is_not_shown(seamless, answer):
    _partner, api, wallet = seamless
    wallet.fail(Fault.WRONG_ANSWER, calls={"balance"}, times=1, answer=answer)
    response = api.get(f"{BASE}/{PLAYER}/wallet/")
    assert response.status_code == 503 and response.json()["code"] == "wallet_unavailable"
    assert api.get(f"{BASE}/{PLAYER}/wallet/").json()["balance"] == 100_000


def test_a_credit_answered_wrongly_is_not_acknowledged_and_is_sent_again(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    wallet.fail(Fault.WRONG_ANSWER, calls={"credit"}, times=1, answer=b'{"balance": 99000, "amount": 7}')
    round_id = place(api, key="r-1", table=table).json()["id"]
    credit = WalletCall.objects.get(kind="credit")
    assert credit.status == "pending" and "amount" in credit.last_error
    assert Round.objects.get(pk=round_id).status == RoundStatus.RESOLVED  # not settled on that answer
    retries_due_now()  # the partner answers the repeated transaction id with its first, right result
    credit.refresh_from_db()
    assert credit.status == "acknowledged" and credit.partner_balance == 101_000
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000  # paid once
    assert [c.repeat for c in calls_named(wallet, "credit")] == [False, True]
    assert Round.objects.get(pk=round_id).status == RoundStatus.SETTLED
    assert ledger_verify(triggered_by="test").ok
