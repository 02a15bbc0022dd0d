"""Clients of the fault suite: players and a partner casino over real HTTP, retrying every request
under its Idempotency-Key until it gets a definitive answer, and recording every answer."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import random
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

RETRY_FOR_S = 120  # a request is retried this long at most (the suite's faults heal well within it)
CLIENT_TIMEOUT_S = 10


@dataclass
class Answer:
    at: float
    method: str
    path: str
    status: int | None  # None: no HTTP answer (connection refused or reset, timeout)
    key: str = ""  # the Idempotency-Key sent
    error: str = ""
    request_id: str = ""
    body: dict | list | None = None


@dataclass
class Ledger:
    """What the clients were told, shared by all of them."""

    answers: list[Answer] = field(default_factory=list)
    rounds: dict[str, dict] = field(default_factory=dict)  # acknowledged rounds by id
    place_keys: dict[str, str] = field(default_factory=dict)  # Idempotency-Key -> round id
    transfers: dict[str, dict] = field(default_factory=dict)  # acknowledged transfers by key
    refused: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, answer: Answer) -> None:
        with self.lock:
            self.answers.append(answer)


class Api:
    def __init__(self, base_url: str, ledger: Ledger, *, token: str = "", partner: tuple[str, str] | None = None):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.ledger = ledger
        self.token = token
        self.partner = partner  # (key id, secret)

    def _headers(self, method: str, path: str, body: bytes, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if self.partner is not None:
            key_id, secret = self.partner
            timestamp, nonce = str(int(time.time())), secrets.token_hex(8)  # a new nonce for every attempt
            message = f"{timestamp}.{nonce}.{method}.{path}.".encode() + body
            headers.update(
                {
                    "X-Partner-Key": key_id,
                    "X-Timestamp": timestamp,
                    "X-Nonce": nonce,
                    "X-Signature": hmac.new(secret.encode(), message, hashlib.sha256).hexdigest(),
                }
            )
        return headers

    def once(self, method: str, path: str, data: dict | None = None, *, key: str | None = None) -> Answer:
        body = b"" if data is None else json.dumps(data).encode()
        started = time.monotonic()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=CLIENT_TIMEOUT_S)
        try:
            connection.request(method, path, body=body or None, headers=self._headers(method, path, body, key))
            response = connection.getresponse()
            raw = response.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = {
                    "unparsed": raw[:300].decode(errors="replace"),
                    "content_type": response.getheader("Content-Type"),
                }
            answer = Answer(
                started, method, path, response.status, key or "", "", response.getheader("X-Request-ID") or "", parsed
            )
        except (OSError, http.client.HTTPException) as exc:
            answer = Answer(started, method, path, None, key or "", f"{exc.__class__.__name__}: {exc}")
        finally:
            connection.close()
        self.ledger.record(answer)
        return answer

    def definitive(self, method: str, path: str, data: dict | None = None, *, key: str | None = None) -> Answer:
        """Retry (same body, same Idempotency-Key) until an answer that is not an outage."""
        deadline = time.monotonic() + RETRY_FOR_S
        while True:
            answer = self.once(method, path, data, key=key)
            in_flight = (
                answer.status == 409
                and isinstance(answer.body, dict)
                and answer.body.get("code") == "idempotency_in_flight"
            )
            if answer.status is not None and answer.status < 500 and not in_flight:
                return answer
            if _wallet_unavailable(answer):
                return answer  # the request's answer (a seamless partner's wallet): a retry gets it again
            if time.monotonic() > deadline:
                raise AssertionError(f"no definitive answer to {method} {path} in {RETRY_FOR_S} s: {answer}")
            time.sleep(0.25)


def _wallet_unavailable(answer: Answer) -> bool:
    return answer.status == 503 and isinstance(answer.body, dict) and answer.body.get("code") == "wallet_unavailable"


def play(api: Api, ledger: Ledger, *, prefix: str, table_id: int, stop: threading.Event, seed: int) -> None:
    """A player (or a partner for one): rounds, and a decision on most ties (the others are left to
    the house rule at the deadline)."""
    rng = random.Random(seed)
    while not stop.is_set():
        key = f"place-{uuid.uuid4().hex}"
        answer = api.definitive(
            "POST", f"{prefix}/rounds/", {"table": str(table_id), "main_bet": 100 * rng.randint(1, 5)}, key=key
        )
        if answer.status != 201:
            ledger.refused.append(answer)
            stop.wait(0.2)
            continue
        round_ = answer.body
        with ledger.lock:
            ledger.rounds[round_["id"]] = round_
            ledger.place_keys[key] = round_["id"]
        if round_["status"] == "awaiting_decision" and rng.random() < 0.7:
            action = rng.choice(["war", "surrender"])
            decided = api.definitive(
                "POST",
                f"{prefix}/rounds/{round_['id']}/decision/",
                {"action": action},
                key=f"decide-{uuid.uuid4().hex}",
            )
            assert decided.status in (200, 409, 422), decided
        stop.wait(rng.uniform(0.02, 0.15))


def transfer(api: Api, ledger: Ledger, *, external_id: str, stop: threading.Event, seed: int) -> None:
    """A partner moving money in and out of its player's wallet."""
    rng = random.Random(seed)
    while not stop.is_set():
        direction = "in" if rng.random() < 0.55 else "out"
        amount = 100 * rng.randint(1, 30)
        key = f"transfer-{uuid.uuid4().hex}"
        answer = api.definitive(
            "POST",
            f"/api/v1/partner/players/{external_id}/transfers/",
            {"direction": direction, "amount": amount, "reference": key},
            key=key,
        )
        if answer.status == 201:
            with ledger.lock:
                ledger.transfers[key] = {**answer.body, "external_id": external_id}
        else:
            assert answer.status == 422 and answer.body["code"] == "insufficient_funds", answer
        stop.wait(rng.uniform(0.05, 0.2))
