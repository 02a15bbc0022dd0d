"""Idempotency-Key handling for POSTs that move money or create a round (API.md), the same for
every app's API: a view passes the caller's scope and its work to `idempotent`.

A request's business work and its stored response commit together in one transaction, so a
stored response always matches what happened, and a request that fails leaves nothing behind for
its retry to trip over. A retry with the same body gets the stored response; another body is
`idempotency_conflict`. While the first request runs, it holds a transaction-level advisory lock
on its key, so a concurrent retry is `idempotency_in_flight` at once; the unique (caller, key)
constraint is the backstop.

A refusal of the work (any `ServiceError`) rolls the whole transaction back, and the refusal is
then stored as the first response in a transaction of its own, under the key's lock again. So the
work needs no savepoint (`core.transactions.refusals_roll_back_everything`), and the request that
succeeds, the common case, runs two statements of its own: the claim and the store. Placing a
round runs none: `idempotent_folded` gives the work a `RequestKey`, whose claim and store ride in
the round's own two statements; `idempotent` is the same flow with the two as statements of their own.

A round placed by the API runs without BEGIN and COMMIT (`idempotent_folded(autocommit=True)`):
its two statements each commit alone. The claim then takes the key's lock for the session, and the
store releases it (every path that ends before the store releases it too), raising instead of
answering False when a response is stored already, so that the round's write is undone with it.
The signed request's nonce is recorded by the claim, once. Work that finds at its write that what
it read has changed (`ReadChangedBeforeWrite`) is run again in a transaction, as above.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone, translation
from drf_spectacular.utils import OpenApiParameter
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from core import sql
from core.errors import (
    IdempotencyConflict,
    IdempotencyInFlight,
    IdempotencyKeyInvalid,
    IdempotencyKeyRequired,
    ServiceError,
)
from core.models import IdempotencyRecord
from core.nonces import SignedNonce, nonce_claim, nonce_claim_after_failure, nonce_of, nonce_used_error
from core.problems import PROBLEM_CONTENT_TYPE, problem_exception_handler
from core.request_id import HEADER as REQUEST_ID_HEADER
from core.request_id import REPLAYED_HEADER, current_request_id
from core.shapes import wire
from core.sql import StoredAnswer
from core.transactions import (
    ReadChangedBeforeWrite,
    refusals_roll_back_everything,
    retried_on_conflict,
    transaction_conflict,
)

logger = logging.getLogger(__name__)
KEEP_FOR = timedelta(hours=48)
T = TypeVar("T")
Answer = tuple[int, object]  # a response's status and its declared answer (a core.shapes shape)

IDEMPOTENCY_HEADER = OpenApiParameter(
    name="Idempotency-Key",
    location=OpenApiParameter.HEADER,
    required=True,
    type={"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
    description="1-255 printable ASCII characters; a retry with the same key and body returns the first response.",
)


def _key(request) -> str:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise IdempotencyKeyRequired()
    if not 1 <= len(key) <= 255 or not all(" " <= ch <= "~" for ch in key):
        raise IdempotencyKeyInvalid()
    return key


def idempotency_lock_id(scope: str, key: str) -> int:
    """The advisory lock a request holds on its key while it runs (a signed 64-bit number)."""
    return int.from_bytes(hashlib.sha256(f"{scope}\n{key}".encode()).digest()[:8], "big", signed=True)


# --- Answers as they were sent ----------------------------------------------------------------------
# A replay is the first answer's bytes and headers, with `Idempotent-Replayed: true` (API.md): the
# first answer (the wire form of its declared shape, core/shapes.py; a refusal's problem) is rendered
# once, stored as that text, and sent from it, the first time and every time after. The replaying
# request's own id goes in `X-Replay-Request-ID` (core/request_id.py).

KEPT_HEADERS = ("Retry-After", "Location")  # of a response, besides its type, language and request id
_RENDERER = JSONRenderer()  # the API's renderer (settings REST_FRAMEWORK): the bytes DRF would send


def stored_answer(*, status: int, body, content_type: str = "application/json", headers=None) -> StoredAnswer:
    """An answer as it will be sent and stored: its body rendered once (in the request's language),
    and the headers a replay must send again."""
    kept = {"Content-Type": content_type, "Content-Language": translation.get_language() or settings.LANGUAGE_CODE}
    for name in KEPT_HEADERS:
        if headers is not None and name in headers:
            kept[name] = headers[name]
    request_id = current_request_id()
    if request_id is not None:
        kept[REQUEST_ID_HEADER] = request_id
    return StoredAnswer(status, _RENDERER.render(body).decode(), kept)


class StoredResponse(Response):
    """A response sent from a stored answer: exactly its bytes and headers (`replayed`: to a retry,
    with `Idempotent-Replayed: true`). `data` is the parsed body, for whoever reads it in-process."""

    def __init__(self, answer: StoredAnswer, *, replayed: bool = False, data=None) -> None:
        if data is None and answer.text:
            data = json.loads(answer.text)
        super().__init__(data, status=answer.status)
        self.answer = answer
        for name, value in answer.headers.items():
            self[name] = value
        if replayed:
            self[REPLAYED_HEADER] = "true"

    @property
    def rendered_content(self) -> bytes:
        return self.answer.text.encode()


def _claim(scope: str, key: str, request_hash: str, nonce: SignedNonce | None) -> Response | None:
    """Inside the request's transaction: the stored first answer to replay, or None once this
    request holds the key (`idempotency_in_flight` while another request holds it); the signed
    request's nonce recorded with the claim (`signature_invalid` if it was used already)."""
    claim = sql.idempotency_claim(
        lock_id=idempotency_lock_id(scope, key),
        scope=scope,
        key=key,
        nonce=nonce.pending if nonce is not None else None,
    )
    if claim.nonce_taken:
        raise nonce_used_error()
    return _claim_answer(claim.free, claim.stored, request_hash, scope=scope, key=key)


def _claim_answer(
    free: bool, stored: tuple[str, StoredAnswer] | None, request_hash: str, *, scope: str, key: str
) -> Response | None:
    if stored is not None:
        stored_hash, answer = stored
        if stored_hash != request_hash:
            raise IdempotencyConflict()
        logger.info(
            "replaying the first answer (%s, request %s) to Idempotency-Key %r of %s",
            answer.status,
            answer.headers.get(REQUEST_ID_HEADER, "unknown"),
            key,
            scope,
        )
        return StoredResponse(answer, replayed=True)
    if not free:
        raise IdempotencyInFlight()
    return None


class _KeyAnswered(Exception):
    """The key's claim, made in the work's own statement, answered instead of the work: a stored
    response to replay, or `idempotency_conflict`/`idempotency_in_flight` (not the key's answer)."""

    def __init__(self, response: Response | None = None, error: ServiceError | None = None) -> None:
        super().__init__(error)
        self.response, self.error = response, error


class RequestKey:
    """A request's Idempotency-Key, given to work that carries the key's two statements in its own
    (`idempotent_folded`): the claim in its first statement (`claim_params`, then `claimed` with
    the claim's columns), the stored response in its last (`store_params(what it made)`)."""

    def __init__(
        self,
        *,
        scope: str,
        key: str,
        request_hash: str,
        respond: Callable[[object], Answer],
        nonce: SignedNonce | None = None,
    ):
        self.scope, self.key, self.request_hash, self._respond = scope, key, request_hash, respond
        self.nonce = nonce  # a signed request's, recorded with the claim (core/nonces.py)
        # The work's statements each commit alone: the claim takes the key's lock for the session,
        # the store releases it (`release` on every other way out).
        self.autocommit = False
        self.lock_held = False
        self.is_claimed = False
        self.nonce_recorded = False  # a claim's statement recorded the nonce (committed with its transaction)
        self.response: StoredAnswer | None = None  # stored with the work
        self.body: dict | None = None  # the answer's wire form, which `response` renders

    @property
    def lock_id(self) -> int:
        return idempotency_lock_id(self.scope, self.key)

    def claim_params(self) -> list:
        """The parameters of `core.sql.IDEMPOTENCY_CLAIM_FROM`."""
        return sql.idempotency_claim_params(
            lock_id=self.lock_id,
            scope=self.scope,
            key=self.key,
            nonce=self.nonce.pending if self.nonce else None,
            session=self.autocommit,
        )

    def claim(self) -> None:
        """The claim in a statement of its own (work that cannot carry it), answered as `claimed`."""
        self._answer(
            sql.idempotency_claim(
                lock_id=self.lock_id,
                scope=self.scope,
                key=self.key,
                nonce=self.nonce.pending if self.nonce else None,
            )
        )

    def claimed(self, row) -> None:
        """The claim's columns (`core.sql.IDEMPOTENCY_CLAIM_COLUMNS`): returns if this request now
        holds the key; otherwise leaves the work (its transaction rolls back) with the answer."""
        self._answer(sql.idempotency_claimed(row))

    def _answer(self, claim: sql.Claim) -> None:
        if claim.nonce_taken:
            raise _KeyAnswered(error=nonce_used_error())
        self.nonce_recorded = self.nonce is not None and self.nonce.pending is not None
        if self.nonce_recorded and self.autocommit:
            self.nonce.claimed = True  # the claim's statement committed alone
        try:
            replay = _claim_answer(claim.free, claim.stored, self.request_hash, scope=self.scope, key=self.key)
        except (IdempotencyConflict, IdempotencyInFlight) as exc:
            raise _KeyAnswered(error=exc) from None
        if replay is not None:
            raise _KeyAnswered(response=replay)  # a session lock found with a response: released at once
        self.is_claimed = True
        self.lock_held = self.autocommit

    def claim_carried(self) -> None:
        """Work whose statements each commit alone, run without a claim of its own: an earlier
        statement of this request claimed the key and committed (a seamless stake's first, before
        the partner's wallet was called). No lock is held; the store then stores only a first
        response (else STORED_ALREADY: the statement carrying it writes nothing), so a request with
        this key that answered meanwhile is found there."""
        if not self.autocommit:
            raise RuntimeError(f"the claim of key {self.key!r} is carried only by work that commits alone")
        self.is_claimed = True
        self.lock_held = False

    def store_params(self, made) -> list:
        """The parameters of `core.sql.IDEMPOTENCY_STORE_CALL`, storing the response to `made`."""
        self._render(made)
        return sql.idempotency_store_params(
            scope=self.scope,
            key=self.key,
            request_hash=self.request_hash,
            answer=self.response,
            release=self.lock_id if self.lock_held else None,
            first_only=self.autocommit,  # a claim carried from an earlier statement holds no lock to release
        )

    def _render(self, made) -> None:
        """The response to `made`: its declared answer rendered once, the bytes stored and sent."""
        status, shaped = self._respond(made)
        self.body = wire(shaped)
        self.response = stored_answer(status=status, body=self.body)

    def stored(self, was_stored: bool) -> None:
        """What the store answered: False, a request with this key committed meanwhile; the work must not stand."""
        if not was_stored:
            raise _KeyAnswered(error=IdempotencyInFlight())
        self.lock_held = False  # a session lock is released by the store

    def release(self) -> None:
        """The key's session lock released, if the work left before the store released it. A
        connection that is lost meanwhile released it with its session."""
        if not self.lock_held:
            return
        self.lock_held = False
        try:
            sql.idempotency_release(lock_id=self.lock_id)
        except DatabaseError as exc:
            logger.warning("the lock of Idempotency-Key %r of %s not released: %s", self.key, self.scope, exc)

    def store(self, made) -> None:
        """The response to `made` stored in a statement of its own, answered as `stored`."""
        self._render(made)
        self.stored(
            sql.idempotency_store(scope=self.scope, key=self.key, request_hash=self.request_hash, answer=self.response)
        )


class _Refused(Exception):
    """The work refused: its transaction is rolled back, the refusal is stored afterwards."""

    def __init__(self, error: ServiceError) -> None:
        super().__init__(error)
        self.error = error


def _request_hash(request) -> str:
    return hashlib.sha256(
        request.method.encode() + b" " + request.get_full_path().encode() + b"\n" + request.body
    ).hexdigest()


def idempotent(
    request, *, scope: str, work: Callable[[], Answer], on_refusal: Callable[[ServiceError], None] | None = None
) -> Response:
    """Run `work` once per (scope, Idempotency-Key); replay its response to retries. `on_refusal`
    runs in the transaction that stores a refusal of the work (what must stand although the work
    was undone). The key's claim and stored response are statements of their own around the work."""

    def claimed_work_stored(request_key: RequestKey) -> None:
        request_key.claim()
        request_key.store(work())

    return idempotent_folded(
        request, scope=scope, work=claimed_work_stored, respond=lambda made: made, on_refusal=on_refusal
    )


def idempotent_folded(
    request,
    *,
    scope: str,
    work: Callable[[RequestKey], object],
    respond: Callable[[object], Answer],
    on_refusal: Callable[[ServiceError], None] | None = None,
    autocommit: bool = False,
) -> Response:
    """`idempotent` for work on every round's path that carries the key's claim and stored response
    in its own first and last statements (`RequestKey`): two round trips fewer. `work(request_key)`
    returns what it made, `respond(made)` is its response (status, body), computed before the last
    statement so that it is stored there. Retries, conflicts, concurrent twins and refusals are
    answered exactly as `idempotent` answers them. `autocommit`: the work can run with each of its
    statements committing alone (`RequestKey.autocommit`: it writes only in its last statement,
    and raises `ReadChangedBeforeWrite` there, having written nothing, if what it read changed); it
    runs so first, outside a caller's transaction, and again in a transaction if it raised that."""
    key = _key(request)
    nonce = nonce_of(request)
    request_key = RequestKey(scope=scope, key=key, request_hash=_request_hash(request), respond=respond, nonce=nonce)
    with _nonce_recorded(nonce):
        return _folded_run(request_key, work=work, on_refusal=on_refusal, autocommit=autocommit)


def _folded_run(
    request_key: RequestKey,
    *,
    work: Callable[[RequestKey], object],
    on_refusal: Callable[[ServiceError], None] | None,
    autocommit: bool = False,
) -> Response:
    """`idempotent_folded`'s transaction, inside `_nonce_recorded`: the work with the key's claim
    and stored answer in its own statements, retried on a lost deadlock; a refusal stored apart.
    `autocommit`: first without a transaction (`_autocommit_attempt`)."""
    key, scope, nonce = request_key.key, request_key.scope, request_key.nonce

    def attempt() -> None:
        request_key.is_claimed, request_key.response, request_key.autocommit = False, None, False
        with transaction.atomic():
            try:
                with refusals_roll_back_everything():
                    work(request_key)
            except ServiceError as exc:
                raise _Refused(exc) from exc  # leaves the block: all of the work is undone
            if not request_key.is_claimed or request_key.response is None:
                raise RuntimeError(f"work for key {key!r} did not carry the key's claim and response")

    def transaction_attempts() -> None:
        # A deadlock lost (the paths that move money lock in one order, so it should not happen)
        # is undone by PostgreSQL and run again here, a few times, before the client hears of it.
        retried_on_conflict(attempt, what=f"request with Idempotency-Key {key!r} of {scope}")

    try:
        if autocommit and not connection.in_atomic_block:
            try:
                _autocommit_attempt(request_key, work=work)
            except ReadChangedBeforeWrite:
                logger.info("Idempotency-Key %r of %s: what the work read changed; again, locking", key, scope)
                transaction_attempts()
        else:
            transaction_attempts()
    except _KeyAnswered as answered:
        if answered.error is not None:
            raise answered.error from None
        return answered.response
    except _Refused as refused:
        return _store_refusal(
            scope=scope,
            key=key,
            request_hash=request_key.request_hash,
            error=refused.error,
            on_refusal=on_refusal,
            nonce=nonce,
        )
    _committed(nonce)
    return StoredResponse(request_key.response, data=request_key.body)


def _autocommit_attempt(request_key: RequestKey, *, work: Callable[[RequestKey], object]) -> None:
    """The work with each of its statements committing alone: the claim (its nonce recorded, the
    key's session lock) committed by the first, the work and its stored answer by the last. The key's
    lock is released on every way out; a refusal leaves nothing written but the claim."""
    request_key.is_claimed, request_key.response, request_key.autocommit = False, None, True
    try:
        work(request_key)
    except ServiceError as exc:
        raise _Refused(exc) from exc
    except DatabaseError as exc:
        if getattr(exc.__cause__, "sqlstate", None) == sql.STORED_ALREADY:
            raise _KeyAnswered(error=IdempotencyInFlight()) from None  # a twin stored its answer meanwhile
        if transaction_conflict(exc) is not None:
            raise ReadChangedBeforeWrite() from exc
        raise
    finally:
        request_key.release()
    if not request_key.is_claimed or request_key.response is None:
        raise RuntimeError(f"work for key {request_key.key!r} did not carry the key's claim and response")


def _committed(nonce: SignedNonce | None) -> None:
    """A transaction that carried the nonce's record committed."""
    if nonce is not None:
        nonce.claimed = True


@contextmanager
def _nonce_recorded(nonce: SignedNonce | None) -> Iterator[None]:
    """Around a request's transactions: a nonce that none of them recorded (their transaction did
    not commit: a replay, a conflict, a database error) is recorded by a statement of its own
    before the answer, which is then `signature_invalid` if the nonce was used already."""
    try:
        yield
    except DatabaseError:
        nonce_claim_after_failure(nonce)
        raise
    except ServiceError:
        if nonce is not None:
            nonce_claim(nonce)  # a used nonce: its refusal replaces this one
        raise
    if nonce is not None:
        nonce_claim(nonce)


def _replay_once_stored(
    in_flight: IdempotencyInFlight, *, scope: str, key: str, request_hash: str, nonce: SignedNonce | None
) -> Response:
    """The outside call answered `in_flight`: the first request with this key may have stored its
    answer by now, so look again (recording `nonce` if it is not yet). Its replay, or `in_flight`
    again: about a first request that has not stored its response, with nothing to store."""
    with transaction.atomic():
        replay = _claim(scope, key, request_hash, nonce)
    _committed(nonce)
    if replay is None:
        raise in_flight
    return replay


def idempotent_around_call(
    request,
    *,
    scope: str,
    call: Callable[[str, str], T],
    work: Callable[[T], Answer],
    on_refusal: Callable[[T, ServiceError], None],
) -> Response:
    """`idempotent` for work that needs an answer from outside first (a seamless partner's wallet):
    `call(key, request_hash)` runs with no transaction open, after the stored first response was
    looked for; then `work(what it returned)` runs as `idempotent` runs it. A refusal by `call` is
    stored as the first response (`idempotency_in_flight` and `idempotency_conflict` are not: they
    are about a first request with this key that has not stored its own yet);
    `on_refusal` runs where a refusal of `work` is stored. `call` itself keeps its own record of
    the request (the key and hash it is given), which is what makes a retry after a crash, with
    nothing stored yet, repeat the same outside call rather than make another."""
    key = _key(request)
    request_hash = _request_hash(request)
    nonce = nonce_of(request)
    with _nonce_recorded(nonce):
        with transaction.atomic():  # the key's lock is held only for this look; the nonce is recorded before the call
            replay = _claim(scope, key, request_hash, nonce)
        _committed(nonce)
        if replay is not None:
            return replay
        try:
            outcome = call(key, request_hash)
        except IdempotencyInFlight as in_flight:
            return _replay_once_stored(in_flight, scope=scope, key=key, request_hash=request_hash, nonce=None)
        except IdempotencyConflict:
            raise
        except ServiceError as exc:
            return _store_refusal(scope=scope, key=key, request_hash=request_hash, error=exc)
        return idempotent(
            request, scope=scope, work=lambda: work(outcome), on_refusal=lambda error: on_refusal(outcome, error)
        )


def idempotent_folded_around_call(
    request,
    *,
    scope: str,
    call: Callable[[RequestKey], T],
    work: Callable[[T, RequestKey], object],
    respond: Callable[[object], Answer],
    on_refusal: Callable[[T, ServiceError], None],
    autocommit: bool = False,
) -> Response:
    """`idempotent_around_call` with the key's statements folded into the work's own, as
    `idempotent_folded` folds them: `call(request_key)` runs with no transaction open (a request
    never runs in one) and carries the key's claim (and the signed request's nonce) in its first
    statement, which commits on its own: a stored first answer is replayed from there, and the key
    is held by no one while the outside call is made. Then `work(what call returned, request_key)`
    runs as `idempotent_folded` runs its work, `autocommit` included (the claim again in its first
    statement, held to the store; the answer stored in its last). Refusals, retries, conflicts and
    concurrent twins are answered exactly as `idempotent_around_call` answers them."""
    key = _key(request)
    nonce = nonce_of(request)
    request_hash = _request_hash(request)
    request_key = RequestKey(scope=scope, key=key, request_hash=request_hash, respond=respond, nonce=nonce)

    def called() -> T:
        try:
            return call(request_key)
        finally:
            if request_key.nonce_recorded:
                _committed(nonce)  # the claim's statement committed it, whatever the claim found

    with _nonce_recorded(nonce):
        try:
            outcome = called()
        except _KeyAnswered as answered:
            if answered.error is not None:
                raise answered.error from None
            return answered.response
        except IdempotencyInFlight as in_flight:
            return _replay_once_stored(in_flight, scope=scope, key=key, request_hash=request_hash, nonce=nonce)
        except IdempotencyConflict:
            raise
        except ServiceError as exc:
            return _store_refusal(scope=scope, key=key, request_hash=request_hash, error=exc, nonce=nonce)
        if not request_key.is_claimed:
            raise RuntimeError(f"the call for key {key!r} did not carry the key's claim")
        return _folded_run(
            request_key,
            work=lambda request_key: work(outcome, request_key),
            on_refusal=lambda error: on_refusal(outcome, error),
            autocommit=autocommit,
        )


def _store_refusal(
    *,
    scope: str,
    key: str,
    request_hash: str,
    error: ServiceError,
    on_refusal: Callable[[ServiceError], None] | None = None,
    nonce: SignedNonce | None = None,
) -> Response:
    """A refusal is the first response too, so retries get it: stored under the key's lock, unless a
    request with the same key got there in between (its response is the first one, then)."""
    problem = problem_exception_handler(error, {})
    answer = stored_answer(
        status=problem.status_code, body=problem.data, content_type=PROBLEM_CONTENT_TYPE, headers=problem
    )
    with transaction.atomic():
        replay = _claim(scope, key, request_hash, nonce)
        if replay is None:
            if on_refusal is not None:
                on_refusal(error)
            sql.idempotency_store(scope=scope, key=key, request_hash=request_hash, answer=answer)
    _committed(nonce)
    return replay if replay is not None else StoredResponse(answer, data=problem.data)


def idempotency_records_purge() -> int:
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()
    return deleted
