"""Idempotency-Key handling for POSTs that move money or create a round (API.md).

The first request claims (caller, key) in a row committed at once; its business work and the
stored response then commit together, so a stored response always matches what happened. A retry
with the same body gets the stored response; another body is `idempotency_conflict`; a retry
while the first is still running is `idempotency_in_flight`.
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

STALE_AFTER = timedelta(minutes=2)  # an in-flight claim this old belongs to a request that died
KEEP_FOR = timedelta(hours=48)

IDEMPOTENCY_HEADER = OpenApiParameter(
    name="Idempotency-Key",
    location=OpenApiParameter.HEADER,
    required=True,
    type=str,
    description="1-255 printable ASCII characters; a retry with the same key and body returns the first response.",
)


def _key(request) -> str:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise IdempotencyKeyRequired()
    if not 1 <= len(key) <= 255 or not all(" " <= ch <= "~" for ch in key):
        raise IdempotencyKeyInvalid()
    return key


def _claim(scope: str, key: str, request_hash: str) -> tuple[IdempotencyRecord, bool]:
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                # No flush to disk for the claim alone: the request's own commit, durable and later
                # in the log, makes it durable too; a claim lost in a crash never had effects.
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
            return IdempotencyRecord.objects.create(scope=scope, key=key, request_hash=request_hash), True
    except IntegrityError:
        record = IdempotencyRecord.objects.get(scope=scope, key=key)
    if record.request_hash != request_hash:
        raise IdempotencyConflict()
    if record.in_flight:
        taken_over = IdempotencyRecord.objects.filter(
            pk=record.pk, in_flight=True, created_at__lt=timezone.now() - STALE_AFTER
        ).update(created_at=timezone.now())
        if not taken_over:
            raise IdempotencyInFlight()
        return record, True
    return record, False


def idempotent(request, *, scope: str, work: Callable[[], tuple[int, dict]]) -> Response:
    """Run `work` once per (scope, Idempotency-Key); replay its response to retries."""
    key = _key(request)
    request_hash = hashlib.sha256(
        request.method.encode() + b" " + request.get_full_path().encode() + b"\n" + request.body
    ).hexdigest()
    record, fresh = _claim(scope, key, request_hash)
    if not fresh:
        return Response(
            record.response_body, status=record.response_status, content_type=record.response_content_type or None
        )
    try:
        with transaction.atomic():
            status, body = work()
            IdempotencyRecord.objects.filter(pk=record.pk).update(
                in_flight=False, response_status=status, response_body=body, response_content_type="application/json"
            )
    except ServiceError as exc:
        # A refusal changed nothing; it is the first response, so retries get it too.
        response = problem_exception_handler(exc, {})
        IdempotencyRecord.objects.filter(pk=record.pk).update(
            in_flight=False, response_status=response.status_code, response_body=response.data,
            response_content_type=PROBLEM_CONTENT_TYPE,
        )  # fmt: skip
        return response
    except BaseException:
        IdempotencyRecord.objects.filter(pk=record.pk).delete()  # nothing happened: let a retry run
        raise
    return Response(body, status=status)


def idempotency_records_purge() -> int:
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - KEEP_FOR).delete()
    return deleted
