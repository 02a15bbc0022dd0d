"""Every hand-written SQL statement of core, one named function each, each tested in
`tests/core/test_sql.py`: the idempotency record's two statements, on every request that moves
money. `core_audit_record` (migrations/0003) writes audit events for other apps' functions."""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection

from core.models import IdempotencyRecord

_TABLE = IdempotencyRecord._meta.db_table
IDEMPOTENCY_CLAIM = (
    "SELECT pg_try_advisory_xact_lock(%s), r.request_hash, r.response_status, r.response_body,"
    f" r.response_content_type FROM (SELECT 1 AS one) AS anchor LEFT JOIN {_TABLE} AS r ON r.scope = %s AND r.key = %s"
)
IDEMPOTENCY_STORE = (
    f"INSERT INTO {_TABLE} (scope, key, request_hash, response_status, response_body, response_content_type,"
    " created_at) VALUES (%s, %s, %s, %s, %s::jsonb, %s, statement_timestamp()) ON CONFLICT (scope, key) DO NOTHING"
)


def idempotency_claim(*, lock_id: int, scope: str, key: str) -> tuple[bool, tuple | None]:
    """Inside the request's transaction: take the key's advisory lock until the end of the
    transaction if it is free, and read the stored first response. Returns (whether the lock was
    taken, (request_hash, status, body, content_type) of the stored response or None)."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_CLAIM, [lock_id, scope, key])
        free, request_hash, status, body, content_type = cursor.fetchone()
    return bool(free), None if request_hash is None else (request_hash, status, body, content_type)


def idempotency_store(*, scope: str, key: str, request_hash: str, status: int, body, content_type: str) -> bool:
    """Store the first response for (scope, key); False if a response was stored already."""
    with connection.cursor() as cursor:
        body = json.dumps(body, cls=DjangoJSONEncoder)  # lazy translations in problems, as DRF renders them
        cursor.execute(IDEMPOTENCY_STORE, [scope, key, request_hash, status, body, content_type])
        return cursor.rowcount == 1
