"""Idempotency-Key handling for POSTs that move money or create a round (API.md), the same for
every app's API: a view passes the caller's scope and its work to `idempotent`.

A request's business work and its stored response commit together in one transaction, so a
stored response always matches what happened, and a request that fails leaves nothing behind for
its retry to trip over. A retry with the same body gets the stored response; another body is
`idempotency_conflict`. While the first request runs, it holds a transaction-level advisory lock
on its key, so a concurrent retry is `idempotency_in_flight` at once; the unique (caller, key)
constraint is the backstop.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from core.errors import (
    IdempotencyConflict,
    IdempotencyInFlight,
    IdempotencyKeyInvalid,
    IdempotencyKeyRequired,
    ServiceError,
)
from core.models import IdempotencyRecord
from core.problems import PROBLEM_CONTENT_TYPE, problem_exception_handler

KEEP_FOR = timedelta(hours=48)

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


def _stored(scope: str, key: str) -> tuple[bool, tuple | None]:
    """Inside the request's transaction: whether this request may run (it got the key's lock),
    and the stored first response, if any, as (request_hash, status, body, content_type)."""
    table = IdempotencyRecord._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(%s), r.request_hash, r.response_status, r.response_body,"
            f" r.response_content_type FROM (SELECT 1 AS one) AS anchor"
            f" LEFT JOIN {table} AS r ON r.scope = %s AND r.key = %s",
            [idempotency_lock_id(scope, key), scope, key],
        )
        free, request_hash, status, body, content_type = cursor.fetchone()
    if request_hash is None:
        return bool(free), None
    body = IdempotencyRecord._meta.get_field("response_body").from_db_value(body, None, connection)
    return bool(free), (request_hash, status, body, content_type)


def _store(*, scope: str, key: str, request_hash: str, status: int, body, content_type: str) -> None:
    try:
        IdempotencyRecord.objects.create(
            scope=scope, key=key, request_hash=request_hash, response_status=status, response_body=body,
            response_content_type=content_type,
        )  # fmt: skip
    except IntegrityError:
        # Another request with this key committed after this one looked: this one's work must
        # not stand (the caller's transaction rolls back); a retry gets the stored response.
        raise IdempotencyInFlight() from None


def idempotent(request, *, scope: str, work: Callable[[], tuple[int, dict]]) -> Response:
    """Run `work` once per (scope, Idempotency-Key); replay its response to retries."""
    key = _key(request)
    request_hash = hashlib.sha256(
        request.method.encode() + b" " + request.get_full_path().encode() + b"\n" + request.body
    ).hexdigest()
    with transaction.atomic():
        free, stored = _stored(scope, key)
        if stored is not None:
            stored_hash, status, body, content_type = stored
            if stored_hash != request_hash:
                raise IdempotencyConflict()
            return Response(body, status=status, content_type=content_type or None)
        if not free:
            raise IdempotencyInFlight()
        try:
            with transaction.atomic():
                status, body = work()
        except ServiceError as exc:
            # A refusal changed nothing; it is the first response, so retries get it too.
            response = problem_exception_handler(exc, {})
            _store(scope=scope, key=key, request_hash=request_hash, status=response.status_code,
                   body=response.data, content_type=PROBLEM_CONTENT_TYPE)  # fmt: skip
            return response
        _store(scope=scope, key=key, request_hash=request_hash, status=status, body=body,
               content_type="application/json")  # fmt: skip
    return Response(body, status=status)


def idempotency_records_purge() -> int:
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()
    return deleted
