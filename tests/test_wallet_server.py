"""The partner's wallet that the seamless tests call (tests/wallet_server.py), held to API.md
"Seamless wallet" over real HTTP: if it let a mistake by, the service's tests would pass on it."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.wallet_server import Fault, PartnerWallet, RemoteWallet

SECRET = "wallet-test-secret"
ROOT = Path(__file__).resolve().parent.parent


def sign(secret: str, timestamp: str, nonce: str, path: str, body: bytes) -> str:
    """API.md's recipe, written out again here so that the server's own is tested against it."""
    return hmac.new(secret.encode(), f"{timestamp}.{nonce}.POST.{path}.".encode() + body, hashlib.sha256).hexdigest()


def call(
    url: str,
    name: str,
    body: dict | bytes,
    *,
    secret: str = SECRET,
    nonce: str | None = None,
    timestamp: int | None = None,
    signature: str | None = None,
    signed_path: str | None = None,
    timeout: float = 10,
    headers: dict | None = None,
) -> tuple[int | None, dict | None]:
    """POST one signed call; (status, answer), or (None, None) when no answer came."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    if nonce is None:
        nonce = body.get("transaction_id") if isinstance(body, dict) and "transaction_id" in body else new_id()
    parts = urlsplit(f"{url}/{name}")
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    sent = {
        "Content-Type": "application/json",
        "X-Timestamp": stamp,
        "X-Nonce": nonce,
        "X-Signature": signature or sign(secret, stamp, nonce, signed_path or parts.path, raw),
    }
    if headers is not None:
        sent = headers
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", parts.path, body=raw, headers=sent)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    except (http.client.HTTPException, OSError):
        return None, None
    finally:
        connection.close()


def new_id() -> str:
    return "tx-" + secrets.token_hex(8)


def debit(player="ext-1", amount=100, *, transaction_id=None, round_id="r-1", kind="stake", currency="EUR") -> dict:
    return {
        "transaction_id": transaction_id or new_id(),
        "player": player,
        "currency": currency,
        "amount": amount,
        "round": round_id,
        "kind": kind,
    }


def credit(player="ext-1", amount=0, *, transaction_id=None, round_id="r-1", currency="EUR") -> dict:
    return {
        "transaction_id": transaction_id or new_id(),
        "player": player,
        "currency": currency,
        "amount": amount,
        "round": round_id,
        "kind": "payout",
    }


def rollback(
    reference: str, player="ext-1", *, transaction_id=None, round_id="r-1", amount=100, currency="EUR"
) -> dict:
    return {
        "transaction_id": transaction_id or new_id(),
        "reference": reference,
        "player": player,
        "currency": currency,
        "amount": amount,
        "round": round_id,
    }


@pytest.fixture
def wallet():
    with PartnerWallet(secret=SECRET, initial_balance=0) as running:
        running.set_balance(player="ext-1", currency="EUR", amount=1_000)
        yield running


def test_balance_answers_the_players_balance_and_unknown_players_start_at_the_initial_balance():
    with PartnerWallet(secret=SECRET, initial_balance=500) as wallet:
        wallet.set_balance(player="known", currency="EUR", amount=1_234)
        assert call(wallet.url, "balance", {"player": "known", "currency": "EUR"}) == (200, {"balance": 1_234})
        assert call(wallet.url, "balance", {"player": "new", "currency": "EUR"}) == (200, {"balance": 500})
        assert wallet.url == f"http://127.0.0.1:{wallet.port}/wallet"
        assert [c.name for c in wallet.calls] == ["balance", "balance"]


def test_a_debit_takes_the_amount_and_a_repeated_transaction_id_answers_the_same_without_moving_money(wallet):
    body = debit(amount=300)
    assert call(wallet.url, "debit", body) == (200, {"balance": 700})
    assert call(wallet.url, "debit", body) == (200, {"balance": 700})
    assert wallet.balance(player="ext-1", currency="EUR") == 700
    assert [(c.status, c.repeat, c.moved) for c in wallet.calls] == [(200, False, -300), (200, True, 0)]
    assert wallet.transactions[body["transaction_id"]].moved == -300


def test_a_debit_beyond_the_balance_is_refused_for_funds_and_stays_refused_when_repeated(wallet):
    body = debit(amount=1_001)
    status, answer = call(wallet.url, "debit", body)
    assert (status, answer["code"]) == (422, "insufficient_funds")
    wallet.set_balance(player="ext-1", currency="EUR", amount=5_000)
    assert call(wallet.url, "debit", body)[0] == 422  # the stored result, not a second try
    assert wallet.balance(player="ext-1", currency="EUR") == 5_000
    assert call(wallet.url, "debit", debit(amount=5_000)) == (200, {"balance": 0})


def test_a_credit_adds_its_amount_zero_included_once_per_transaction_id(wallet):
    lost, won = credit(amount=0, round_id="r-lost"), credit(amount=250, round_id="r-won")
    assert call(wallet.url, "credit", lost) == (200, {"balance": 1_000})
    assert call(wallet.url, "credit", won) == (200, {"balance": 1_250})
    assert call(wallet.url, "credit", won) == (200, {"balance": 1_250})
    assert wallet.balance(player="ext-1", currency="EUR") == 1_250


def test_a_rollback_undoes_its_debit_once_whatever_the_number_of_rollbacks(wallet):
    stake = debit(amount=400)
    call(wallet.url, "debit", stake)
    first = rollback(stake["transaction_id"], amount=stake["amount"])
    assert call(wallet.url, "rollback", first) == (200, {"balance": 1_000})
    assert call(wallet.url, "rollback", first) == (200, {"balance": 1_000})  # the same rollback, repeated
    assert call(wallet.url, "rollback", rollback(stake["transaction_id"], amount=stake["amount"])) == (
        200,
        {"balance": 1_000},
    )  # another one
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert [c.moved for c in wallet.calls_named("rollback")] == [400, 0, 0]
    assert wallet.transactions[stake["transaction_id"]].rolled_back


def test_a_rollback_of_a_refused_debit_moves_nothing(wallet):
    stake = debit(amount=2_000)
    assert call(wallet.url, "debit", stake)[0] == 422
    assert call(wallet.url, "rollback", rollback(stake["transaction_id"], amount=stake["amount"])) == (
        200,
        {"balance": 1_000},
    )


def test_a_rollback_of_an_unknown_debit_answers_200_and_that_debit_arriving_later_takes_nothing(wallet):
    late = debit(amount=100)
    assert call(wallet.url, "rollback", rollback(late["transaction_id"])) == (200, {"balance": 1_000})
    status, answer = call(wallet.url, "debit", late)
    assert (status, answer["code"]) == (409, "transaction_rolled_back")
    assert call(wallet.url, "debit", late)[0] == 409
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert late["transaction_id"] in wallet.rolled_back


def test_a_rollback_must_name_the_debits_player_round_currency_and_amount_and_a_debit(wallet):
    stake, payout = debit(amount=100, round_id="r-9"), credit(amount=50, round_id="r-9")
    call(wallet.url, "debit", stake)
    call(wallet.url, "credit", payout)
    other_player = rollback(stake["transaction_id"], amount=stake["amount"], player="ext-2", round_id="r-9")
    assert call(wallet.url, "rollback", other_player)[1]["code"] == "reference_mismatch"
    other_round = rollback(stake["transaction_id"], amount=stake["amount"], round_id="r-8")
    assert call(wallet.url, "rollback", other_round)[1]["code"] == "reference_mismatch"
    other_amount = rollback(stake["transaction_id"], amount=stake["amount"] + 1, round_id="r-9")
    assert call(wallet.url, "rollback", other_amount)[1]["code"] == "reference_mismatch"
    other_currency = rollback(stake["transaction_id"], amount=stake["amount"], round_id="r-9", currency="USD")
    assert call(wallet.url, "rollback", other_currency)[1]["code"] == "reference_mismatch"
    assert call(wallet.url, "rollback", rollback(payout["transaction_id"], round_id="r-9"))[1]["code"] == "not_a_debit"
    assert wallet.balance(player="ext-1", currency="EUR") == 950
    assert stake["transaction_id"] not in wallet.rolled_back


@pytest.mark.parametrize(
    "change", ["secret", "stale", "future", "path", "body", "nonce_form", "nonce_not_tx", "not_hex", "missing"]
)
def test_a_request_not_signed_to_the_contract_is_401_recorded_and_moves_nothing(wallet, change):
    body = debit(amount=100)
    raw = json.dumps(body).encode()
    kwargs = {
        "secret": {"secret": "another-secret"},
        "stale": {"timestamp": int(time.time()) - 301},
        "future": {"timestamp": int(time.time()) + 301},
        "path": {"signed_path": "/wallet/credit"},
        "body": {"signature": sign(SECRET, str(int(time.time())), body["transaction_id"], "/wallet/debit", raw + b" ")},
        "nonce_form": {"nonce": "short"},
        "nonce_not_tx": {"nonce": new_id()},
        "not_hex": {"signature": "z" * 64},
        "missing": {"headers": {"Content-Type": "application/json"}},
    }[change]
    status, answer = call(wallet.url, "debit", raw, nonce=kwargs.pop("nonce", body["transaction_id"]), **kwargs)
    assert (status, answer["code"]) == (401, "signature_invalid")
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert [(c.name, c.status) for c in wallet.calls] == [("debit", 401)]
    assert wallet.transactions == {}
    assert call(wallet.url, "debit", body) == (200, {"balance": 900})  # refused, it left the id unused


def test_a_timestamp_within_300_s_either_way_passes(wallet):
    query = {"player": "ext-1", "currency": "EUR"}
    assert call(wallet.url, "balance", query, timestamp=int(time.time()) - 290)[0] == 200
    assert call(wallet.url, "balance", query, timestamp=int(time.time()) + 290)[0] == 200


def test_a_nonce_is_accepted_again_only_as_the_same_money_call_with_the_same_body(wallet):
    nonce = new_id()
    assert call(wallet.url, "balance", {"player": "ext-1", "currency": "EUR"}, nonce=nonce)[0] == 200
    assert call(wallet.url, "balance", {"player": "ext-1", "currency": "EUR"}, nonce=nonce)[0] == 401  # a replay
    body = debit(amount=100)
    assert call(wallet.url, "debit", body)[0] == 200
    assert call(wallet.url, "debit", {**body, "amount": 900})[0] == 401  # the same id, another debit
    assert call(wallet.url, "credit", {**credit(amount=5), "transaction_id": body["transaction_id"]})[0] == 401
    assert wallet.balance(player="ext-1", currency="EUR") == 900


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("debit", {**debit(), "amount": 1.5}),
        ("debit", {**debit(), "amount": "100"}),
        ("debit", {**debit(), "amount": True}),
        ("debit", {**debit(), "amount": 0}),
        ("debit", {**debit(), "amount": -5}),
        ("debit", {**debit(), "kind": "payout"}),
        ("debit", {k: v for k, v in debit().items() if k != "round"}),
        ("debit", {**debit(), "currency": "eur"}),
        ("credit", {**credit(), "amount": -1}),
        ("credit", {**credit(), "kind": "stake"}),
        ("rollback", {k: v for k, v in rollback("tx-00000000").items() if k != "reference"}),
        ("balance", {"player": "ext-1"}),
        ("balance", [1, 2]),
    ],
)
def test_a_body_not_of_the_calls_shape_is_400_and_moves_nothing(wallet, name, body):
    status, answer = call(wallet.url, name, body, nonce=body.get("transaction_id") if isinstance(body, dict) else None)
    assert (status, answer["code"]) == (400, "invalid_request")
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert wallet.transactions == {}


def test_a_body_that_is_not_json_is_400(wallet):
    status, answer = call(wallet.url, "debit", b"{not json", nonce=new_id())
    assert (status, answer["code"]) == (400, "invalid_request")


def test_a_rollback_with_the_debits_own_transaction_id_is_refused(wallet):
    stake = debit(amount=100)
    call(wallet.url, "debit", stake)
    same = rollback(stake["transaction_id"], amount=stake["amount"], transaction_id=stake["transaction_id"])
    assert call(wallet.url, "rollback", same)[0] == 401  # its nonce is the debit's, with another body
    never_sent = new_id()
    status, answer = call(wallet.url, "rollback", rollback(never_sent, transaction_id=never_sent))
    assert (status, answer["code"]) == (400, "invalid_request")
    assert wallet.balance(player="ext-1", currency="EUR") == 900


def test_unknown_calls_and_paths_are_404(wallet):
    assert call(wallet.url, "transfer", {"player": "ext-1"})[0] == 404
    assert call(wallet.url.removesuffix("/wallet") + "/other", "debit", debit())[0] == 404


def test_error_500_moves_nothing_and_stores_nothing_so_the_retry_is_processed(wallet):
    wallet.fail(Fault.ERROR_500, calls={"debit"})
    body = debit(amount=100)
    assert call(wallet.url, "debit", body)[0] == 500
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert call(wallet.url, "debit", body) == (200, {"balance": 900})
    assert [(c.status, c.fault) for c in wallet.calls] == [(500, Fault.ERROR_500), (200, None)]


def test_a_fault_applies_to_the_calls_named_and_as_many_times_as_told(wallet):
    wallet.fail(Fault.ERROR_500, calls={"credit"}, times=2)
    assert call(wallet.url, "debit", debit())[0] == 200
    assert [call(wallet.url, "credit", credit())[0] for _ in range(3)] == [500, 500, 200]
    wallet.fail(Fault.ERROR_500, times=None)
    assert [call(wallet.url, "balance", {"player": "ext-1", "currency": "EUR"})[0] for _ in range(3)] == [500] * 3
    assert call(wallet.url, "credit", credit())[0] == 500
    wallet.clear_faults()
    assert call(wallet.url, "credit", credit())[0] == 200


def test_insufficient_funds_refuses_a_debit_whatever_the_balance_and_is_its_stored_result(wallet):
    wallet.fail(Fault.INSUFFICIENT_FUNDS, calls={"debit"})
    body = debit(amount=1)
    status, answer = call(wallet.url, "debit", body)
    assert (status, answer["code"]) == (422, "insufficient_funds")
    assert call(wallet.url, "debit", body)[0] == 422
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000


def test_drop_closes_the_connection_without_applying(wallet):
    wallet.fail(Fault.DROP, calls={"debit"})
    body = debit(amount=100)
    assert call(wallet.url, "debit", body) == (None, None)
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000
    assert call(wallet.url, "debit", body) == (200, {"balance": 900})


def test_apply_then_drop_takes_the_money_and_the_retry_answers_it_without_taking_it_again(wallet):
    wallet.fail(Fault.APPLY_THEN_DROP, calls={"debit", "credit"}, times=2)
    stake = debit(amount=100)
    assert call(wallet.url, "debit", stake) == (None, None)
    assert wallet.balance(player="ext-1", currency="EUR") == 900
    payout = credit(amount=200)
    assert call(wallet.url, "credit", payout) == (None, None)
    assert call(wallet.url, "credit", payout) == (200, {"balance": 1_100})
    assert call(wallet.url, "debit", stake) == (200, {"balance": 900})  # the stored answer: the balance then
    assert wallet.balance(player="ext-1", currency="EUR") == 1_100
    assert [(c.name, c.status, c.fault) for c in wallet.calls] == [
        ("debit", None, Fault.APPLY_THEN_DROP),
        ("credit", None, Fault.APPLY_THEN_DROP),
        ("credit", 200, None),
        ("debit", 200, None),
    ]


def test_a_timed_out_debit_did_happen_and_its_rollback_gives_the_money_back(wallet):
    wallet.fail(Fault.TIMEOUT, calls={"debit"}, seconds=2)
    stake = debit(amount=100)
    assert call(wallet.url, "debit", stake, timeout=0.3) == (None, None)  # the caller gives up first
    assert wallet.balance(player="ext-1", currency="EUR") == 900  # ...but the debit happened
    assert call(wallet.url, "rollback", rollback(stake["transaction_id"], amount=stake["amount"])) == (
        200,
        {"balance": 1_000},
    )
    wallet.wait_for(lambda: wallet.calls_named("debit"), timeout=10)  # recorded when applied
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000


def test_a_rollback_that_overtakes_a_late_debit_keeps_it_from_taking_money(wallet):
    wallet.fail(Fault.LATE_APPLY, calls={"debit"}, seconds=0.5)
    stake = debit(amount=100)
    late = threading.Thread(target=call, args=(wallet.url, "debit", stake), kwargs={"timeout": 0.1})
    late.start()
    late.join()
    assert call(wallet.url, "rollback", rollback(stake["transaction_id"], amount=stake["amount"])) == (
        200,
        {"balance": 1_000},
    )
    debits = wallet.wait_for(lambda: wallet.calls_named("debit"), timeout=10)
    assert [(c.status, c.answer["code"]) for c in debits] == [(409, "transaction_rolled_back")]
    assert wallet.balance(player="ext-1", currency="EUR") == 1_000


def test_the_wallet_waits_out_its_latency_outside_its_lock(wallet):
    """A slow call (a fault's delay) does not hold up the others: they are answered meanwhile."""
    wallet.fail(Fault.TIMEOUT, calls={"credit"}, seconds=30)
    slow = threading.Thread(target=call, args=(wallet.url, "credit", credit(amount=5)), kwargs={"timeout": 60})
    slow.start()
    wallet.wait_for(lambda: wallet.calls_named("credit"))  # applied, now waiting to answer
    assert call(wallet.url, "debit", debit(amount=100)) == (200, {"balance": 905})
    wallet.stop()  # wakes the waiting call
    slow.join(timeout=10)
    assert not slow.is_alive()


def test_fifty_debits_at_once_against_a_balance_that_affords_ten_take_exactly_ten(wallet):
    wallet.set_balance(player="ext-1", currency="EUR", amount=1_000)
    bodies = [debit(amount=100, round_id=f"r-{n}") for n in range(50)]
    statuses: list[int | None] = [None] * 50
    start = threading.Barrier(50)

    def one(n: int) -> None:
        start.wait()
        statuses[n] = call(wallet.url, "debit", bodies[n])[0]

    threads = [threading.Thread(target=one, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] * 10 + [422] * 40
    assert wallet.balance(player="ext-1", currency="EUR") == 0
    assert sum(t.moved for t in wallet.transactions.values()) == -1_000


def test_the_services_own_client_is_accepted(wallet, outbound_private):
    """core/outbound.py signs as the contract says, or the wallet would answer 401."""
    from core.outbound import outbound_post

    body = debit(amount=100)
    answer = outbound_post(
        url=f"{wallet.url}/debit", secret=SECRET, nonce=body["transaction_id"], body=json.dumps(body).encode()
    )
    assert (answer.status_code, json.loads(answer.body)) == (200, {"balance": 900})
    wrong = outbound_post(
        url=f"{wallet.url}/balance",
        secret="not-the-secret",
        nonce=new_id(),
        body=b'{"player": "ext-1", "currency": "EUR"}',
    )
    assert wrong.status_code == 401


def test_as_a_process_it_prints_its_url_serves_calls_and_is_driven_over_its_control_endpoints():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.wallet_server",
            "--port",
            "0",
            "--secret",
            SECRET,
            "--latency-ms",
            "1",
            "--initial-balance",
            "300",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline().split()
        assert line[0] == "ready"
        url = line[1]
        remote = RemoteWallet(url)
        assert call(url, "debit", debit(player="new", amount=100)) == (200, {"balance": 200})
        remote.set_balance(player="ext-1", currency="EUR", amount=50)
        remote.fail(Fault.ERROR_500, calls={"credit"})
        assert call(url, "credit", credit(amount=10))[0] == 500
        remote.clear_faults()
        assert call(url, "credit", credit(amount=10)) == (200, {"balance": 60})
        state = remote.state()
        assert remote.balances() == {("ext-1", "EUR"): 60, ("new", "EUR"): 200}
        assert state["applied"] == {"debit": {"count": 1, "total": 100}, "credit": {"count": 1, "total": 10}}
        assert state["calls"] == {"debit": {"200": 1}, "credit": {"500": 1, "200": 1}}
        assert [c["status"] for c in remote.calls()] == [200, 500, 200]
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
