"""Every hand-written SQL statement of core, one named function each, each tested in
`tests/core/test_sql.py`: the idempotency record's two statements, on every request that moves
money. `core_audit_record` (migrations/0003) writes audit events for other apps' functions."""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection

# Both are functions of the schema (migrations/0005), so that another app's statement can carry
# them too: `IDEMPOTENCY_CLAIM_FROM` joined into its first statement, `IDEMPOTENCY_STORE_CALL` in the
# select list of its last, with the parameters of `idempotency_claim_params`/`idempotency_store_params`.
IDEMPOTENCY_CLAIM_FROM = "core_idempotency_claim(%s, %s, %s) AS claim"
IDEMPOTENCY_CLAIM_COLUMNS = (
    "claim.free, claim.request_hash, claim.response_status, claim.response_body, claim.response_content_type"
)
IDEMPOTENCY_CLAIM = f"SELECT {IDEMPOTENCY_CLAIM_COLUMNS} FROM {IDEMPOTENCY_CLAIM_FROM}"
IDEMPOTENCY_STORE_CALL = "core_idempotency_store(%s, %s, %s, %s, %s::jsonb, %s)"
IDEMPOTENCY_STORE = f"SELECT {IDEMPOTENCY_STORE_CALL}"


def idempotency_claim_params(*, lock_id: int, scope: str, key: str) -> list:
    return [lock_id, scope, key]


def idempotency_claimed(row) -> tuple[bool, tuple | None]:
    """What the claim's five columns say: (whether this request took the key's lock, (request_hash,
    status, body, content_type) of the stored response or None)."""
    free, request_hash, status, body, content_type = row
    return bool(free), None if request_hash is None else (request_hash, status, body, content_type)


def idempotency_store_params(*, scope: str, key: str, request_hash: str, status: int, body,
                             content_type: str) -> list:  # fmt: skip
    body = json.dumps(body, cls=DjangoJSONEncoder)  # lazy translations in problems, as DRF renders them
    return [scope, key, request_hash, status, body, content_type]


def idempotency_claim(*, lock_id: int, scope: str, key: str) -> tuple[bool, tuple | None]:
    """Inside the request's transaction: take the key's advisory lock until the end of the
    transaction if it is free, and read the stored first response. Returns (whether the lock was
    taken, (request_hash, status, body, content_type) of the stored response or None)."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_CLAIM, idempotency_claim_params(lock_id=lock_id, scope=scope, key=key))
        return idempotency_claimed(cursor.fetchone())


def idempotency_store(*, scope: str, key: str, request_hash: str, status: int, body, content_type: str) -> bool:
    """Store the first response for (scope, key); False if a response was stored already."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_STORE, idempotency_store_params(
            scope=scope, key=key, request_hash=request_hash, status=status, body=body, content_type=content_type))
        return bool(cursor.fetchone()[0])
