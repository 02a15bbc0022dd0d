"""Every hand-written SQL statement of core, one named function each, each tested in
`tests/core/test_sql.py`: the idempotency record's two statements, on every request that moves
money. `core_audit_record` writes audit events for other apps' functions. Each function of the
schema is in its file, `core/sql/<function>.sql` (loaded by the migrations: core/sql_functions.py)."""

from __future__ import annotations

import json
from typing import NamedTuple

from django.db import connection

# Both are functions of the schema (core/sql/core_idempotency_*.sql), so that another app's statement can carry
# them too: `IDEMPOTENCY_CLAIM_FROM` joined into its first statement, `IDEMPOTENCY_STORE_CALL` in the
# select list of its last, with the parameters of `idempotency_claim_params`/`idempotency_store_params`.
IDEMPOTENCY_CLAIM_FROM = "core_idempotency_claim(%s, %s, %s, %s, %s) AS claim"
IDEMPOTENCY_CLAIM_COLUMNS = (
    "claim.free, claim.request_hash, claim.response_status, claim.response_text, claim.response_content_type,"
    " claim.response_headers, claim.nonce_taken"
)
IDEMPOTENCY_CLAIM_COLUMN_COUNT = IDEMPOTENCY_CLAIM_COLUMNS.count(",") + 1
IDEMPOTENCY_CLAIM = f"SELECT {IDEMPOTENCY_CLAIM_COLUMNS} FROM {IDEMPOTENCY_CLAIM_FROM}"
IDEMPOTENCY_STORE_CALL = "core_idempotency_store(%s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s)"
IDEMPOTENCY_RELEASE = "SELECT pg_advisory_unlock(%s)"
# SQLSTATE of a store that releases the key (`release`) or stores only a first answer (`first_only`):
# a response was stored for the key already.
STORED_ALREADY = "IDS01"
IDEMPOTENCY_STORE = f"SELECT {IDEMPOTENCY_STORE_CALL}"


class StoredAnswer(NamedTuple):
    """A first answer as it is stored and replayed: its status, body text (exactly the bytes sent,
    as UTF-8) and the headers a replay sends again."""

    status: int
    text: str
    headers: dict[str, str]


class Claim(NamedTuple):
    """What the claim of an Idempotency-Key found."""

    free: bool  # this request took the key's lock
    stored: tuple[str, StoredAnswer] | None  # (request hash, the first answer) stored for the key
    nonce_taken: bool = False  # the request's nonce was used already: a replay, refused (nothing else read)


def idempotency_claim_params(
    *, lock_id: int, scope: str, key: str, nonce: str | None = None, session: bool = False
) -> list:
    """`nonce`: the signed request's nonce to record with the claim (core/nonces.py), if any;
    `session`: the key's lock held past the statement's transaction, until the store that
    releases it (`idempotency_store_params(release=...)`) or `idempotency_release`."""
    return [lock_id, scope, key, nonce, session]


def idempotency_claimed(row) -> Claim:
    """What the claim's columns say."""
    free, request_hash, status, text, content_type, headers, nonce_taken = row
    if request_hash is None:
        return Claim(bool(free), None, bool(nonce_taken))
    headers = json.loads(headers) if isinstance(headers, str) else dict(headers or {})  # jsonb comes as text
    headers.setdefault("Content-Type", content_type or "application/json")
    return Claim(bool(free), (request_hash, StoredAnswer(status, text, headers)), bool(nonce_taken))


def idempotency_store_params(
    *,
    scope: str,
    key: str,
    request_hash: str,
    answer: StoredAnswer,
    release: int | None = None,
    first_only: bool = False,
) -> list:
    """`release`: the key's lock held by a `session` claim, released by the store, which then raises
    STORED_ALREADY instead of answering False (the statement carrying it writes nothing).
    `first_only`: the same without a lock to release (the key was claimed by an earlier statement
    that committed: `RequestKey.claim_carried`)."""
    return [
        scope,
        key,
        request_hash,
        answer.status,
        answer.text,
        answer.headers.get("Content-Type", ""),
        json.dumps(answer.headers),
        release,
        first_only,
    ]


def idempotency_claim(*, lock_id: int, scope: str, key: str, nonce: str | None = None) -> Claim:
    """Inside the request's transaction: record the signed request's `nonce` if given, take the
    key's advisory lock until the end of the transaction if it is free, and read the stored first
    answer."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_CLAIM, idempotency_claim_params(lock_id=lock_id, scope=scope, key=key, nonce=nonce))
        return idempotency_claimed(cursor.fetchone())


def idempotency_release(*, lock_id: int) -> bool:
    """Release the key's lock taken by a `session` claim, on a path that ends before the store
    that releases it; False if this connection did not hold it."""
    with connection.cursor() as cursor:
        cursor.execute(IDEMPOTENCY_RELEASE, [lock_id])
        return bool(cursor.fetchone()[0])


def idempotency_store(*, scope: str, key: str, request_hash: str, answer: StoredAnswer) -> bool:
    """Store the first answer for (scope, key); False if an answer was stored already."""
    with connection.cursor() as cursor:
        cursor.execute(
            IDEMPOTENCY_STORE, idempotency_store_params(scope=scope, key=key, request_hash=request_hash, answer=answer)
        )
        return bool(cursor.fetchone()[0])
