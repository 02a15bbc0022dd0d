"""Every hand-written SQL statement the ledger runs, one named function each, each tested in
`tests/ledger/test_sql.py`. The services call these; the rest of the ledger's reads and writes go
through the ORM.

The schema's own SQL, which the database runs by itself, is versioned with the schema: the
append-only and balance triggers (`migrations/0002_database_guards.py`) and `ledger_post_entry`,
the whole posting of an entry in one call, request hash included (`migrations/0005_*`). Other
apps' SQL posts through that function too (casino settlement), never by writing ledger tables.
"""

from __future__ import annotations

from django.db import connection

from ledger.models import Account

# SQLSTATEs raised by ledger_post_entry.
INSUFFICIENT_FUNDS = "LDG01"  # a player account would go below zero
MISSING_ACCOUNT = "LDG02"

# The hash chain's single sealer holds this transaction-level advisory lock.
SEAL_LOCK_ID = 7_461_001

_ACCOUNT_COLUMNS = ("id", "kind", "currency", "player_id", "partner_id", "shard")
_ACCOUNTS = f"SELECT {', '.join(_ACCOUNT_COLUMNS)} FROM ledger_account"

ACCOUNTS_OF_PLAYER = f"{_ACCOUNTS} WHERE player_id = %s AND currency = %s"
SYSTEM_ACCOUNT = (
    f"{_ACCOUNTS} WHERE kind = %s AND currency = %s AND shard = %s AND player_id IS NULL AND partner_id IS NULL"
)
POST_ENTRY = "SELECT entry_id, outcome FROM ledger_post_entry(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
# What ledger_post_entry answers for a key: a new entry, the same one again, or another content.
POSTED, REPLAYED, CONFLICT = "posted", "replayed", "conflict"
SEAL_LOCK = "SELECT pg_advisory_xact_lock(%s)"
SNAPSHOT_READ_ONLY = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"


def _accounts(statement: str, params: list) -> list[Account]:
    # On every round's path (placing and settling): one plain statement, no ORM query building.
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return [Account.from_db(connection.alias, _ACCOUNT_COLUMNS, row) for row in cursor.fetchall()]


def accounts_of_player(*, player_id: int, currency: str) -> list[Account]:
    """The player's accounts in `currency` (wallet and money in play, once they are open)."""
    return _accounts(ACCOUNTS_OF_PLAYER, [player_id, currency])


def system_account(*, kind: str, currency: str, shard: int) -> Account | None:
    """A house or outside-world account: owned by no player or partner."""
    found = _accounts(SYSTEM_ACCOUNT, [kind, currency, shard])
    return found[0] if found else None


def post_entry(
    *, idempotency_key: str, kind: str, reason: str, actor_type: str, actor_id: str, reference_type: str,
    reference_id: str, reverses_id: int | None, account_ids: list[int], amounts: list[int], currencies: list[str],
) -> tuple[int, str]:  # fmt: skip
    """One call of `ledger_post_entry`: the entry, its balance updates (rows locked in primary-key
    order) and its postings. Returns (entry id, POSTED) for a new entry; when the key was taken
    already, (that entry's id, REPLAYED) if it asked for the same, or (its id, CONFLICT). Raises a
    DatabaseError with SQLSTATE INSUFFICIENT_FUNDS or MISSING_ACCOUNT, having written nothing."""
    with connection.cursor() as cursor:
        cursor.execute(
            POST_ENTRY,
            [idempotency_key, kind, reason, actor_type, actor_id, reference_type, reference_id, reverses_id,
             account_ids, amounts, currencies],
        )  # fmt: skip
        entry_id, outcome = cursor.fetchone()
    return entry_id, outcome


def seal_lock() -> None:
    """Take the sealer's lock until the end of the transaction (waits for another sealer)."""
    with connection.cursor() as cursor:
        cursor.execute(SEAL_LOCK, [SEAL_LOCK_ID])


def snapshot_read_only() -> None:
    """First statement of a transaction: every later read sees one snapshot, and nothing is written."""
    with connection.cursor() as cursor:
        cursor.execute(SNAPSHOT_READ_ONLY)
