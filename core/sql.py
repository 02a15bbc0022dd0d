"""Every hand-written SQL statement of core, one named function each, each tested in
`tests/core/test_sql.py`: the idempotency record's two statements, on every request that moves
money. `core_audit_record` (migrations/0003) writes audit events for other apps' functions."""

from __future__ import annotations

import json
from typing import NamedTuple

from django.db import connection

# Both are functions of the schema (migrations/0005), so that another app's statement can carry
# them too: `IDEMPOTENCY_CLAIM_FROM` joined into its first statement, `IDEMPOTENCY_STORE_CALL` in the
# select list of its last, with the parameters of `idempotency_claim_params`/`idempotency_store_params`.
IDEMPOTENCY_CLAIM_FROM = "core_idempotency_claim(%s, %s, %s) AS claim"
IDEMPOTENCY_CLAIM_COLUMNS = (
    "claim.free, claim.request_hash, claim.response_status, claim.response_text, claim.response_content_type,"
    " claim.response_headers"
)
IDEMPOTENCY_CLAIM_COLUMN_COUNT = IDEMPOTENCY_CLAIM_COLUMNS.count(",") + 1
IDEMPOTENCY_CLAIM = f"SELECT {IDEMPOTENCY_CLAIM_COLUMNS} FROM {IDEMPOTENCY_CLAIM_FROM}"
IDEMPOTENCY_STORE_CALL = "core_idempotency_store(%s, %s, %s, %s, %s, %s, %s::jsonb)"
IDEMPOTENCY_STORE = f"SELECT {IDEMPOTENCY_STORE_CALL}"


class StoredAnswer(NamedTuple):
    """A first answer as it is stored and replayed: its status, body text (exactly the bytes sent,
    as UTF-8) and the headers a replay sends again."""

    status: int
    text: str
    headers: dict[str, str]


def idempotency_claim_params(*, lock_id: int, scope: str, key: str) -> list:
    return [lock_id, scope, key]


def idempotency_claimed(row) -> tuple[bool, tuple[str, StoredAnswer] | None]:
    """What the claim's columns say: (whether this request took the key's lock, (request_hash, the
    stored answer) or None)."""
    free, request_hash, status, text, content_type, headers = row
    if request_hash is None:
        return bool(free), None
    headers = json.loads(headers) if isinstance(headers, str) else dict(headers or {})  # jsonb comes as text
    headers.setdefault("Content-Type", content_type or "application/json")
    return bool(free), (request_hash, StoredAnswer(status, text, headers))


def idempotency_store_params(*, scope: str, key: str, request_hash: str, answer: StoredAnswer) -> list:
    return [scope, key, request_hash, answer.status, answer.text, answer.headers.get("Content-Type", ""),
            json.dumps(answer.headers)]  # fmt: skip


def idempotency_claim(*, lock_id: int, scope: str, key: str) -> tuple[bool, tuple[str, StoredAnswer] | None]:
    """Inside the request's transaction: take the key's advisory lock until the end of the
    transaction if it is free, and read the stored first answer. Returns (whether the lock was
    taken, (request_hash, the stored answer) or None)."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_CLAIM, idempotency_claim_params(lock_id=lock_id, scope=scope, key=key))
        return idempotency_claimed(cursor.fetchone())


def idempotency_store(*, scope: str, key: str, request_hash: str, answer: StoredAnswer) -> bool:
    """Store the first answer for (scope, key); False if an answer was stored already."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_STORE, idempotency_store_params(scope=scope, key=key, request_hash=request_hash,
                                                                   answer=answer))  # fmt: skip
        return bool(cursor.fetchone()[0])
