"""A partner casino's seamless wallet, for tests and benchmarks: a real HTTP server that keeps
its players' balances and answers the service's `balance`, `debit`, `credit` and `rollback` calls
as docs/API.md "Seamless wallet" says a partner's wallet must.

It is written from the contract, not from the service's code: it checks the signature with its
own HMAC recipe, so a mistake in how the service signs (or what it sends) is refused here as a
partner would refuse it. Nothing here imports Django or the project.

    with PartnerWallet(secret="...", initial_balance=0) as wallet:
        wallet.set_balance(player="ext-1", currency="EUR", amount=10_000)
        ...  # partner_create --wallet-url wallet.url
        wallet.fail(Fault.TIMEOUT, calls={"debit"}, times=1)
        wallet.fail(Fault.WRONG_ANSWER, calls={"debit"}, answer=b'{"balance": -5}')
        wallet.wait_for(lambda: wallet.calls_named("credit"))

Or as a process (benchmarks, the fault suite), controlled over HTTP with `RemoteWallet`:

    python -m tests.wallet_server --port P --secret S [--latency-ms 1] [--initial-balance N]

What it answers (every answer is JSON; a refusal is `{"code": ..., "detail": ...}`):

* A request is checked before anything else: `X-Timestamp` within 300 s of this clock,
  `X-Nonce` of 8-64 `[A-Za-z0-9_-]` (and equal to the body's `transaction_id` for the calls that
  move money), `X-Signature` = hex(HMAC-SHA256(secret, "{timestamp}.{nonce}.POST.{path}.{body}")).
  A nonce seen before is accepted only as a retry: the same money call with the same body. Any
  other failure is `401 {"code": "signature_invalid"}`, recorded, and changes nothing. A body that
  is not the call's shape is `400 {"code": "invalid_request"}`.
* `balance` -> `200 {"balance"}`. Unknown players start at `initial_balance`.
* `debit` -> `200 {"balance"}`, or `422 {"code": "insufficient_funds"}` when it would take the
  balance below 0. `credit` adds `amount` (0 allowed) -> `200 {"balance"}`.
* `rollback` undoes the debit named by `reference` if it happened and was not undone already,
  and answers `200 {"balance"}` whether or not it knew that debit. A rollback whose `player`,
  `round`, `currency` or `amount` is not the debit's is `400 {"code": "reference_mismatch"}`; one that names a credit
  is `400 {"code": "not_a_debit"}`.
* A debit whose `transaction_id` was already rolled back (the rollback overtook a slow debit)
  takes no money: `409 {"code": "transaction_rolled_back"}`, remembered like any other result.
  The service counts it as "any other answer": the round is not placed, and the rollback it
  sends again is answered 200 and moves nothing.
* A repeated `transaction_id` answers the stored result (status and body) and moves nothing.
  A `500` or a dropped connection stores nothing: the retry is processed afresh.
"""

from __future__ import annotations

import argparse
import enum
import hashlib
import hmac
import http.client
import json
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

CLOCK_SKEW_S = 300
BASE_PATH = "/wallet"
CONTROL_PATH = "/_control"
CALLS = ("balance", "debit", "credit", "rollback")
MONEY_CALLS = ("debit", "credit", "rollback")
NONCE = re.compile(r"\A[A-Za-z0-9_-]{8,64}\Z")
TIMESTAMP = re.compile(r"\A[0-9]{1,12}\Z")
SIGNATURE = re.compile(r"\A[0-9a-fA-F]{64}\Z")
CURRENCY = re.compile(r"\A[A-Z]{3}\Z")


class Fault(enum.Enum):
    """How the next matching call(s) misbehave (`PartnerWallet.fail`)."""

    TIMEOUT = "timeout"  # apply the call, then answer only after `seconds`: it happened, the answer came too late
    LATE_APPLY = "late_apply"  # wait `seconds`, then apply and answer: a rollback sent meanwhile overtakes it
    ERROR_500 = "error_500"  # answer 500 and apply nothing
    INSUFFICIENT_FUNDS = "insufficient_funds"  # refuse as 422 insufficient_funds whatever the balance
    APPLY_THEN_DROP = "apply_then_drop"  # apply the call, then close the connection without an answer
    DROP = "drop"  # close the connection without applying or answering
    WRONG_ANSWER = "wrong_answer"  # apply the call, then answer `answer` (raw bytes) with the call's status


@dataclass
class RecordedCall:
    """One request as the wallet got it and what it answered. `status` is None when it answered
    nothing (a dropped connection); `moved` is how much the call changed the balance (signed)."""

    name: str
    body: dict | None
    headers: dict[str, str]
    status: int | None
    answer: dict | None
    at: float
    fault: Fault | None = None
    repeat: bool = False  # a transaction_id answered from its stored result
    moved: int = 0


@dataclass
class Transaction:
    """A money call's stored result, by transaction_id (a repeat answers it again)."""

    name: str
    body: dict
    status: int
    answer: dict
    moved: int
    rolled_back: bool = False  # a debit that a rollback undid


@dataclass
class _Rule:
    fault: Fault
    calls: frozenset[str] | None
    times: int | None
    seconds: float
    answer: bytes = b""


class _Refusal(Exception):
    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.answer = status, {"code": code, "detail": detail}


@dataclass
class _Outcome:
    status: int | None
    answer: dict | None
    fault: Fault | None = None
    delay_s: float = 0.0
    drop: bool = False
    repeat: bool = False
    moved: int = 0
    raw: bytes | None = None  # sent instead of `answer` as JSON (Fault.WRONG_ANSWER)


@dataclass
class _State:
    balances: dict[tuple[str, str], int] = field(default_factory=dict)
    transactions: dict[str, Transaction] = field(default_factory=dict)
    nonces: dict[str, tuple[str, dict | None]] = field(default_factory=dict)
    rolled_back: set[str] = field(default_factory=set)  # debit ids undone, known or not when undone
    calls: list[RecordedCall] = field(default_factory=list)
    rules: list[_Rule] = field(default_factory=list)


def signature_of(*, secret: str, timestamp: str, nonce: str, path: str, body: bytes, method: str = "POST") -> str:
    """API.md: hex(HMAC-SHA256(secret as UTF-8, "{timestamp}.{nonce}.{METHOD}.{path}.{raw body}"))."""
    message = f"{timestamp}.{nonce}.{method}.{path}.".encode() + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


class PartnerWallet:
    """The partner's wallet on 127.0.0.1 (a free port unless `port`), served by a daemon thread
    from `start()` (or `with`) to `stop()`. Thread-safe: one lock guards all of its state, and no
    call waits (latency, a fault's delay) while holding it."""

    def __init__(
        self,
        *,
        secret: str,
        latency_s: float = 0.0,
        initial_balance: int = 0,
        port: int = 0,
        host: str = "127.0.0.1",
        timeout_s: float = 6.0,
        clock: Callable[[], float] = time.time,
        base_path: str = BASE_PATH,
    ) -> None:
        if initial_balance < 0:
            raise ValueError("a balance is never below 0")
        self.secret = secret
        self.latency_s = latency_s
        self.initial_balance = initial_balance
        self.timeout_s = timeout_s
        self.clock = clock  # what X-Timestamp is checked against (a fixed time: a documented example)
        self._address = (host, port)
        self.base_path = base_path.rstrip("/")  # the path of the wallet URL: calls go to {base_path}/{name}
        self._lock = threading.Lock()
        self._state = _State()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- running ---------------------------------------------------------------------------------

    def start(self) -> PartnerWallet:
        self._stopping.clear()
        self._server = _Server(self._address, _handler_for(self))
        # A short poll: stop() waits for the loop to notice, and the tests stop a wallet each.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="partner-wallet", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes the calls that wait out a fault's delay
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> PartnerWallet:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the wallet is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """What `partner_create --wallet-url` gets: the service POSTs to `{url}/debit` etc."""
        return f"http://{self._address[0]}:{self.port}{self.base_path}"

    # -- what tests set and read -----------------------------------------------------------------

    def set_balance(self, *, player: str, currency: str, amount: int) -> None:
        if not isinstance(amount, int) or amount < 0:
            raise ValueError("a balance is a whole number of minor units, never below 0")
        with self._lock:
            self._state.balances[(player, currency)] = amount

    def balance(self, *, player: str, currency: str) -> int:
        with self._lock:
            return self._state.balances.get((player, currency), self.initial_balance)

    def balances(self) -> dict[tuple[str, str], int]:
        """Every (player, currency) the wallet has seen, with its balance."""
        with self._lock:
            return dict(self._state.balances)

    def fail(
        self,
        fault: Fault,
        *,
        calls: Iterable[str] | None = None,
        times: int | None = 1,
        seconds: float | None = None,
        answer: bytes = b"",
    ) -> None:
        """The next `times` calls named in `calls` (every call when None) misbehave as `fault`;
        `times=None`: every one until `clear_faults()`. `seconds`: the delay of TIMEOUT and
        LATE_APPLY (default `timeout_s`); `answer`: the bytes WRONG_ANSWER sends. Faults apply to
        requests whose signature and body pass."""
        names = None if calls is None else frozenset(calls)
        if names is not None and not names <= set(CALLS):
            raise ValueError(f"calls are among {CALLS}")
        if times is not None and times < 1:
            raise ValueError("times is at least 1, or None for every call")
        rule = _Rule(fault, names, times, self.timeout_s if seconds is None else seconds, answer)
        with self._lock:
            self._state.rules.append(rule)

    def clear_faults(self) -> None:
        with self._lock:
            self._state.rules.clear()

    @property
    def calls(self) -> list[RecordedCall]:
        with self._lock:
            return list(self._state.calls)

    def calls_named(self, name: str, *, status: int | str | None = "any") -> list[RecordedCall]:
        """The recorded calls of one name (optionally only those answered with `status`)."""
        return [c for c in self.calls if c.name == name and (status == "any" or c.status == status)]

    @property
    def transactions(self) -> dict[str, Transaction]:
        with self._lock:
            return dict(self._state.transactions)

    @property
    def rolled_back(self) -> set[str]:
        """The debit ids a rollback undid or forbade (a debit arriving after its rollback)."""
        with self._lock:
            return set(self._state.rolled_back)

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 10, interval: float = 0.02) -> Any:
        """Poll `predicate` until it is truthy and return its value (for what arrives later, like
        a credit from settlement); AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError(f"not true within {timeout} s: {getattr(predicate, '__name__', predicate)}")
            time.sleep(interval)

    def snapshot(self) -> dict:
        """The whole state as JSON (what `RemoteWallet.state()` reads from a process)."""
        with self._lock:
            state = self._state
            counts: dict[str, dict[str, int]] = {}
            for call in state.calls:
                entry = counts.setdefault(call.name, {})
                key = "dropped" if call.status is None else str(call.status)
                entry[key] = entry.get(key, 0) + 1
            applied: dict[str, dict[str, int]] = {}
            for transaction in state.transactions.values():
                if transaction.status == 200:
                    entry = applied.setdefault(transaction.name, {"count": 0, "total": 0})
                    entry["count"] += 1
                    entry["total"] += abs(transaction.moved)
            return {
                "balances": [
                    {"player": p, "currency": c, "balance": b} for (p, c), b in sorted(state.balances.items())
                ],
                "calls": counts,
                "applied": applied,
                "transactions": len(state.transactions),
                "rolled_back": sorted(state.rolled_back),
            }

    # -- handling one call (from the server's threads) ---------------------------------------------

    def _handle(self, *, name: str, path: str, headers: dict[str, str], raw: bytes) -> _Outcome:
        """Check, then apply one call; the answer and whatever must happen before it is sent."""
        body: dict | None = None
        try:
            body = _parse(raw)
            with self._lock:
                self._authenticate(name=name, path=path, headers=headers, body=body, raw=raw)
                _validate(name, body)
                rule = self._take_rule(name)
            if rule is not None and rule.fault is Fault.LATE_APPLY:
                self._stopping.wait(rule.seconds)
            with self._lock:
                outcome = self._apply(name, body, rule)
        except _Refusal as refusal:
            outcome = _Outcome(refusal.status, refusal.answer)
        with self._lock:
            self._state.calls.append(
                RecordedCall(
                    name=name,
                    body=body,
                    headers=headers,
                    status=None if outcome.drop else outcome.status,
                    answer=None if outcome.drop else outcome.answer,
                    at=time.time(),
                    fault=outcome.fault,
                    repeat=outcome.repeat,
                    moved=outcome.moved,
                )
            )
        return outcome

    def _authenticate(self, *, name: str, path: str, headers: dict[str, str], body: dict | None, raw: bytes) -> None:
        timestamp, nonce, signature = (headers.get(h, "") for h in ("x-timestamp", "x-nonce", "x-signature"))
        if not (timestamp and nonce and signature):
            raise _Refusal(401, "signature_invalid", "X-Timestamp, X-Nonce and X-Signature are all required")
        if not TIMESTAMP.match(timestamp) or abs(self.clock() - int(timestamp)) > CLOCK_SKEW_S:
            raise _Refusal(401, "signature_invalid", "X-Timestamp is not within 300 s of the wallet's clock")
        if not NONCE.match(nonce):
            raise _Refusal(401, "signature_invalid", "X-Nonce is 8 to 64 characters of [A-Za-z0-9_-]")
        expected = signature_of(secret=self.secret, timestamp=timestamp, nonce=nonce, path=path, body=raw)
        if not SIGNATURE.match(signature) or not hmac.compare_digest(expected, signature.lower()):
            raise _Refusal(401, "signature_invalid", "the signature does not match")
        if name in MONEY_CALLS and isinstance(body, dict) and body.get("transaction_id") != nonce:
            raise _Refusal(401, "signature_invalid", "X-Nonce is the call's transaction_id")
        seen = self._state.nonces.get(nonce)
        if seen is not None and not (name in MONEY_CALLS and seen == (name, body)):
            raise _Refusal(401, "signature_invalid", "this nonce was already used for another request")
        self._state.nonces[nonce] = (name, body)

    def _take_rule(self, name: str) -> _Rule | None:
        for rule in self._state.rules:
            if rule.calls is None or name in rule.calls:
                if rule.times is not None:
                    rule.times -= 1
                    if rule.times == 0:
                        self._state.rules.remove(rule)
                return rule
        return None

    def _apply(self, name: str, body: dict, rule: _Rule | None) -> _Outcome:
        fault = rule.fault if rule else None
        if fault is Fault.ERROR_500:
            return _Outcome(
                500, {"code": "server_error", "detail": "the wallet failed (a fault it was told to make)"}, fault=fault
            )
        if fault is Fault.DROP:
            return _Outcome(None, None, fault=fault, drop=True)
        state = self._state
        if name == "balance":
            return _Outcome(
                200,
                {"balance": self._balance_of(body["player"], body["currency"])},
                fault=fault,
                delay_s=rule.seconds if fault is Fault.TIMEOUT else 0.0,
                drop=fault is Fault.APPLY_THEN_DROP,
                raw=rule.answer if fault is Fault.WRONG_ANSWER else None,
            )
        transaction_id = body["transaction_id"]
        stored = state.transactions.get(transaction_id)
        if stored is not None:
            outcome = _Outcome(stored.status, stored.answer, repeat=True)
        elif fault is Fault.INSUFFICIENT_FUNDS and name == "debit":
            outcome = self._store(name, body, 422, _insufficient(), 0)
        elif fault is Fault.INSUFFICIENT_FUNDS:
            return _Outcome(422, _insufficient(), fault=fault)
        else:
            outcome = getattr(self, f"_{name}")(body)
        outcome.fault = fault
        if fault is Fault.TIMEOUT:
            outcome.delay_s = rule.seconds
        outcome.drop = fault is Fault.APPLY_THEN_DROP
        if fault is Fault.WRONG_ANSWER:
            outcome.raw = rule.answer
        return outcome

    def _balance_of(self, player: str, currency: str) -> int:
        return self._state.balances.setdefault((player, currency), self.initial_balance)

    def _store(self, name: str, body: dict, status: int, answer: dict, moved: int) -> _Outcome:
        self._state.transactions[body["transaction_id"]] = Transaction(name, body, status, answer, moved)
        return _Outcome(status, answer, moved=moved)

    def _debit(self, body: dict) -> _Outcome:
        key = (body["player"], body["currency"])
        if body["transaction_id"] in self._state.rolled_back:
            return self._store(
                "debit",
                body,
                409,
                {
                    "code": "transaction_rolled_back",
                    "detail": "this debit was rolled back before it arrived: no money moved",
                },
                0,
            )
        balance = self._balance_of(*key)
        if body["amount"] > balance:
            return self._store("debit", body, 422, _insufficient(), 0)
        self._state.balances[key] = balance - body["amount"]
        return self._store("debit", body, 200, {"balance": balance - body["amount"]}, -body["amount"])

    def _credit(self, body: dict) -> _Outcome:
        key = (body["player"], body["currency"])
        balance = self._balance_of(*key) + body["amount"]
        self._state.balances[key] = balance
        return self._store("credit", body, 200, {"balance": balance}, body["amount"])

    def _rollback(self, body: dict) -> _Outcome:
        reference = body["reference"]
        debit = self._state.transactions.get(reference)
        if debit is not None and debit.name != "debit":
            raise _Refusal(400, "not_a_debit", "the reference is a transaction that is not a debit")
        fields = ("player", "round", "currency", "amount")
        if debit is not None and any(debit.body[name] != body[name] for name in fields):
            raise _Refusal(
                400, "reference_mismatch", "the rollback's player, round, currency or amount is not the debit's"
            )
        self._state.rolled_back.add(reference)
        if debit is None:  # never arrived (or not yet): nothing to undo, and it may take nothing later
            balance = self._balance_of(body["player"], body["currency"])
            return self._store("rollback", body, 200, {"balance": balance}, 0)
        key = (debit.body["player"], debit.body["currency"])
        moved = 0
        if debit.status == 200 and not debit.rolled_back:
            debit.rolled_back = True
            moved = -debit.moved
            self._state.balances[key] = self._balance_of(*key) + moved
        return self._store("rollback", body, 200, {"balance": self._balance_of(*key)}, moved)

    # -- control (process mode) ------------------------------------------------------------------

    def _control(self, method: str, action: str, raw: bytes) -> tuple[int, dict]:
        try:
            body = json.loads(raw) if raw else {}
            if method == "GET" and action == "state":
                return 200, self.snapshot()
            if method == "GET" and action == "calls":
                return 200, {"calls": [_call_json(c) for c in self.calls]}
            if method == "POST" and action == "balance":
                self.set_balance(player=body["player"], currency=body["currency"], amount=body["amount"])
                return 200, {"balance": self.balance(player=body["player"], currency=body["currency"])}
            if method == "POST" and action == "fail":
                self.fail(
                    Fault(body["fault"]),
                    calls=body.get("calls"),
                    times=body.get("times", 1),
                    seconds=body.get("seconds"),
                    answer=body.get("answer", "").encode("utf-8", "surrogateescape"),
                )
                return 200, {}
            if method == "POST" and action == "clear":
                self.clear_faults()
                return 200, {}
            if method == "POST" and action == "latency":
                self.latency_s = float(body["seconds"])
                return 200, {}
        except (ValueError, KeyError, TypeError) as exc:
            return 400, {"code": "invalid_request", "detail": str(exc)}
        return 404, {"code": "not_found", "detail": f"no control {method} {action}"}


def _insufficient() -> dict:
    return {"code": "insufficient_funds", "detail": "the player's balance does not cover the debit"}


def _parse(raw: bytes) -> dict:
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise _Refusal(400, "invalid_request", "the body is not JSON") from None
    if not isinstance(body, dict):
        raise _Refusal(400, "invalid_request", "the body is a JSON object")
    return body


def _text(body: dict, name: str, pattern: re.Pattern | None = None) -> None:
    value = body.get(name)
    if not isinstance(value, str) or not value or (pattern is not None and not pattern.match(value)):
        raise _Refusal(400, "invalid_request", f"{name} is missing or not a valid string")


def _amount(body: dict, *, zero: bool) -> None:
    value = body.get("amount")
    if type(value) is not int or value < (0 if zero else 1):
        raise _Refusal(
            400, "invalid_request", f"amount is an integer of minor units, {'0 or more' if zero else 'above 0'}"
        )


SHAPES = {
    "balance": {"player", "currency"},
    "debit": {"transaction_id", "player", "currency", "amount", "round", "kind"},
    "credit": {"transaction_id", "player", "currency", "amount", "round", "kind"},
    "rollback": {"transaction_id", "reference", "player", "currency", "amount", "round"},
}
KINDS = {"debit": {"stake", "raise"}, "credit": {"payout"}}


def _validate(name: str, body: dict) -> None:
    """The body has the call's fields (API.md's table), each of its type (more fields are let by)."""
    missing = SHAPES[name] - body.keys()
    if missing:
        raise _Refusal(400, "invalid_request", f"missing: {', '.join(sorted(missing))}")
    _text(body, "player")
    if "currency" in SHAPES[name]:
        _text(body, "currency", CURRENCY)
    if name in MONEY_CALLS:
        _text(body, "transaction_id", NONCE)
        _text(body, "round")
    if name in KINDS and body.get("kind") not in KINDS[name]:
        raise _Refusal(400, "invalid_request", f"kind is one of {', '.join(sorted(KINDS[name]))}")
    if name in MONEY_CALLS:
        _amount(body, zero=name == "credit")
    if name == "rollback":
        _text(body, "reference", NONCE)
        if body["reference"] == body["transaction_id"]:
            raise _Refusal(400, "invalid_request", "a rollback has its own transaction_id, not the debit's")


def _call_json(call: RecordedCall) -> dict:
    return {
        "name": call.name,
        "body": call.body,
        "status": call.status,
        "answer": call.answer,
        "at": call.at,
        "fault": call.fault.value if call.fault else None,
        "repeat": call.repeat,
        "moved": call.moved,
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # many rounds at once connect at once: no SYN waits in a short backlog
    allow_reuse_address = True


def _handler_for(wallet: PartnerWallet) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the service's connection pool expects
        # An answer's headers and body are two writes: with Nagle's algorithm the body waits for
        # the caller's delayed ACK (40 ms on Linux), and a "1 ms" wallet answered in 41.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = urlsplit(self.path).path
            if path.startswith(CONTROL_PATH + "/"):
                self._send(*wallet._control("POST", path[len(CONTROL_PATH) + 1 :], raw))
                return
            prefix, _, name = path.rpartition("/")
            if prefix != wallet.base_path or name not in CALLS:
                self._send(
                    404,
                    {"code": "not_found", "detail": f"the wallet's calls are {wallet.base_path}/{{{','.join(CALLS)}}}"},
                )
                return
            if wallet.latency_s:
                time.sleep(wallet.latency_s)
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                outcome = wallet._handle(name=name, path=path, headers=headers, raw=raw)
            except Exception as exc:  # a bug here must read as one, not as the partner dropping the call
                traceback.print_exc()
                self._send(500, {"code": "wallet_bug", "detail": repr(exc)})
                return
            if outcome.delay_s:
                wallet._stopping.wait(outcome.delay_s)
            if outcome.drop:
                self.close_connection = True
                return
            self._send(outcome.status, outcome.answer, raw=outcome.raw)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path.startswith(CONTROL_PATH + "/"):
                self._send(*wallet._control("GET", path[len(CONTROL_PATH) + 1 :], b""))
            else:
                self._send(405, {"code": "method_not_allowed", "detail": "the wallet's calls are POSTs"})

        def _send(self, status: int, answer: dict | None, raw: bytes | None = None) -> None:
            data = json.dumps(answer).encode() if raw is None else raw
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the caller gave up (its timeout): nobody to answer
                self.close_connection = True

        def log_message(self, *args) -> None:
            pass

    return Handler


class RemoteWallet:
    """A `python -m tests.wallet_server` process, driven over its control endpoints (unsigned,
    on loopback): what a benchmark or the fault suite reads and sets while the service calls it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.url = url
        self._host, self._port = parts.hostname, parts.port

    def _call(self, method: str, action: str, body: dict | None = None) -> dict:
        connection = http.client.HTTPConnection(self._host, self._port, timeout=30)
        try:
            connection.request(
                method,
                f"{CONTROL_PATH}/{action}",
                body=json.dumps(body or {}).encode(),
                headers={"Content-Type": "application/json"},
            )
            response = connection.getresponse()
            answer = json.loads(response.read() or b"{}")
        finally:
            connection.close()
        if response.status != 200:
            raise RuntimeError(f"{method} {action}: {response.status} {answer}")
        return answer

    def state(self) -> dict:
        return self._call("GET", "state")

    def calls(self) -> list[dict]:
        return self._call("GET", "calls")["calls"]

    def balances(self) -> dict[tuple[str, str], int]:
        return {(b["player"], b["currency"]): b["balance"] for b in self.state()["balances"]}

    def set_balance(self, *, player: str, currency: str, amount: int) -> None:
        self._call("POST", "balance", {"player": player, "currency": currency, "amount": amount})

    def fail(
        self,
        fault: Fault,
        *,
        calls: Iterable[str] | None = None,
        times: int | None = 1,
        seconds: float | None = None,
        answer: bytes = b"",
    ) -> None:
        self._call(
            "POST",
            "fail",
            {
                "fault": fault.value,
                "calls": None if calls is None else sorted(calls),
                "times": times,
                "seconds": seconds,
                "answer": answer.decode("utf-8", "surrogateescape"),
            },
        )

    def clear_faults(self) -> None:
        self._call("POST", "clear")

    def set_latency(self, seconds: float) -> None:
        self._call("POST", "latency", {"seconds": seconds})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A partner's seamless wallet (API.md), for tests and benchmarks.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--secret", required=True, help="the partner's secret, as partner_create printed it")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added before each call is handled")
    parser.add_argument("--initial-balance", type=int, default=0, help="the balance of a player seen first")
    args = parser.parse_args(argv)
    wallet = PartnerWallet(
        secret=args.secret,
        latency_s=args.latency_ms / 1000,
        initial_balance=args.initial_balance,
        port=args.port,
        host=args.host,
    ).start()
    stopped = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopped.set())
    print(f"ready {wallet.url}", flush=True)
    stopped.wait()
    wallet.stop()
    sys.exit(0)


if __name__ == "__main__":
    main()
