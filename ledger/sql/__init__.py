"""Every hand-written SQL statement the ledger runs, one named function each, each tested in
`tests/ledger/test_sql.py`. The services call these; the rest of the ledger's reads and writes go
through the ORM.

The schema's own SQL, which the database runs by itself, is in one file per function
(`ledger/sql/<function>.sql`, loaded by the migrations: core/sql_functions.py): the append-only and
balance triggers' functions (the triggers: the squashed migration 0001), `ledger_post_entries`, the
whole posting of entries in one call, request hash included, and `ledger_house_shard`, the rule of
the house shard. Other apps' SQL posts through it too (casino settlement), never by writing ledger
tables.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from django.db import connection

from ledger.models import Account

# SQLSTATEs raised by ledger_post_entry and ledger_post_entries.
INSUFFICIENT_FUNDS = "LDG01"  # a player account would go below zero
MISSING_ACCOUNT = "LDG02"
MALFORMED_ENTRIES = "LDG03"  # ledger_post_entries: keys not distinct, or lines that are not entry by entry

# The hash chain's single sealer holds this transaction-level advisory lock.
SEAL_LOCK_ID = 7_461_001

_ACCOUNT_COLUMNS = ("id", "kind", "currency", "player_id", "partner_id", "shard")
_ACCOUNTS = f"SELECT {', '.join(_ACCOUNT_COLUMNS)} FROM ledger_account"

ACCOUNTS_OF_PLAYER = f"{_ACCOUNTS} WHERE player_id = %s AND currency = %s"
SYSTEM_ACCOUNT = (
    f"{_ACCOUNTS} WHERE kind = %s AND currency = %s AND shard = %s AND player_id IS NULL AND partner_id IS NULL"
)
PARTNER_ACCOUNT = f"{_ACCOUNTS} WHERE kind = %s AND currency = %s AND shard = %s AND partner_id = %s"
# The shard of the house that the key's movement posts to, opened when missing: `ledger_house_shard`
# is the rule, as for settlement in SQL (casino_rounds_settle). Its columns come from the call, not
# from a read of the table (the statement's snapshot would not see a shard that the call opened).
HOUSE_ACCOUNT = (
    "SELECT ledger_house_account(%s, s.shard), 'house', %s, NULL, NULL, s.shard FROM ledger_house_shard(%s) AS s(shard)"
)
POST_ENTRY = "SELECT entry_id, outcome FROM ledger_post_entry(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
# What ledger_post_entry answers for a key: a new entry, the same one again, or another content.
POSTED, REPLAYED, CONFLICT = "posted", "replayed", "conflict"
SEAL_LOCK = "SELECT pg_advisory_xact_lock(%s)"
LOCK_ACCOUNTS = "SELECT ledger_lock_accounts(%s)"
_LOCK_READING_BALANCES = (
    "SELECT id, balance FROM ledger_account WHERE id IN (SELECT unnest(%s::bigint[])) ORDER BY id FOR NO KEY UPDATE"
)
LOCK_READING_BALANCES = {False: _LOCK_READING_BALANCES, True: f"{_LOCK_READING_BALANCES} SKIP LOCKED"}
SEAL_HEAD = "SELECT hash FROM ledger_entryseal ORDER BY sequence DESC LIMIT 1"
# An entry takes its id before it commits, so one may commit after a later one was sealed; the
# sealer looks this many ids back (far more than could ever be in flight), and a full pass (the
# verification's) looks at every entry.
SEAL_LOOKBACK = 100_000
_ENTRY_COLUMNS = (
    "id",
    "idempotency_key",
    "kind",
    "reason",
    "actor_type",
    "actor_id",
    "reference_type",
    "reference_id",
    "reverses_id",
    "created_at",
)
UNSEALED_ENTRIES = (
    f"SELECT {', '.join('e.' + column for column in _ENTRY_COLUMNS)} FROM ledger_journalentry e"
    " WHERE e.id > %s AND NOT EXISTS (SELECT 1 FROM ledger_entryseal s WHERE s.entry_id = e.id)"
    " ORDER BY e.id LIMIT %s"
)
LAST_SEALED_ENTRY = "SELECT coalesce(max(entry_id), 0) FROM ledger_entryseal"
POSTINGS_OF_ENTRIES = (
    "SELECT entry_id, id, account_id, direction, amount, currency, balance_after FROM ledger_posting"
    " WHERE entry_id = ANY (%s) ORDER BY entry_id, id"
)
SEALS_INSERT = (
    "INSERT INTO ledger_entryseal (entry_id, previous_hash, hash, sealed_at)"
    " SELECT s.entry_id, s.previous_hash, s.hash, statement_timestamp()"
    " FROM unnest(%s::bigint[], %s::text[], %s::text[]) WITH ORDINALITY AS s(entry_id, previous_hash, hash, n)"
    " ORDER BY s.n"
)
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


def house_account(*, currency: str, key: str) -> Account:
    """The shard of the house bankroll that the movement keyed `key` posts to (opened if missing)."""
    (account,) = _accounts(HOUSE_ACCOUNT, [currency, currency, key])
    return account


def partner_account(*, kind: str, currency: str, shard: int, partner_id: int) -> Account | None:
    """A partner's account (a shard of its seamless account, on every seamless round's path)."""
    found = _accounts(PARTNER_ACCOUNT, [kind, currency, shard, partner_id])
    return found[0] if found else None


def post_entry(
    *,
    idempotency_key: str,
    kind: str,
    reason: str,
    actor_type: str,
    actor_id: str,
    reference_type: str,
    reference_id: str,
    reverses_id: int | None,
    account_ids: list[int],
    amounts: list[int],
    currencies: list[str],
) -> tuple[int, str]:
    """One call of `ledger_post_entry`: the entry, its balance updates (rows locked in primary-key
    order) and its postings. Returns (entry id, POSTED) for a new entry; when the key was taken
    already, (that entry's id, REPLAYED) if it asked for the same, or (its id, CONFLICT). Raises a
    DatabaseError with SQLSTATE INSUFFICIENT_FUNDS or MISSING_ACCOUNT, having written nothing."""
    with connection.cursor() as cursor:
        cursor.execute(
            POST_ENTRY,
            [
                idempotency_key,
                kind,
                reason,
                actor_type,
                actor_id,
                reference_type,
                reference_id,
                reverses_id,
                account_ids,
                amounts,
                currencies,
            ],
        )
        entry_id, outcome = cursor.fetchone()
    return entry_id, outcome


def accounts_lock(*, account_ids: list[int]) -> None:
    """Lock these accounts' rows until the end of the transaction, in primary-key order, as every
    posting locks them (`ledger_lock_accounts`): several entries of one transaction lock them up front."""
    with connection.cursor() as cursor:
        cursor.execute(LOCK_ACCOUNTS, [account_ids])


def accounts_lock_reading_balances(*, account_ids: list[int], skip_locked: bool) -> dict[int, int]:
    """Lock these accounts' rows in primary-key order until the end of the transaction, as every
    posting locks them, and read their balances: {id: balance}. `skip_locked`: only those no other
    transaction holds right now, without waiting for the others."""
    with connection.cursor() as cursor:
        cursor.execute(LOCK_READING_BALANCES[skip_locked], [account_ids])
        return dict(cursor.fetchall())


class EntryRow(NamedTuple):
    """What the hash chain covers of an entry (the attributes `entry_content_hash` reads)."""

    id: int
    idempotency_key: str
    kind: str
    reason: str
    actor_type: str
    actor_id: str
    reference_type: str
    reference_id: str
    reverses_id: int | None
    created_at: datetime


class PostingRow(NamedTuple):
    id: int
    account_id: int
    direction: str
    amount: int
    currency: str
    balance_after: int


def seal_head() -> str | None:
    """The hash of the chain's last seal (None before the first)."""
    with connection.cursor() as cursor:
        cursor.execute(SEAL_HEAD)
        row = cursor.fetchone()
    return row[0] if row else None


def unsealed_entries(*, limit: int, everywhere: bool = False) -> list[EntryRow]:
    """Entries not sealed yet, oldest first: among the last SEAL_LOOKBACK ids before the newest
    sealed entry and after it, or, `everywhere`, among all entries."""
    with connection.cursor() as cursor:
        after = 0
        if not everywhere:
            cursor.execute(LAST_SEALED_ENTRY)
            after = max(0, cursor.fetchone()[0] - SEAL_LOOKBACK)
        cursor.execute(UNSEALED_ENTRIES, [after, limit])
        return [EntryRow(*row) for row in cursor.fetchall()]


def postings_of_entries(*, entry_ids: list[int]) -> dict[int, list[PostingRow]]:
    """The postings of these entries, by entry, each entry's in the order they were written."""
    by_entry: dict[int, list[PostingRow]] = {}
    with connection.cursor() as cursor:
        cursor.execute(POSTINGS_OF_ENTRIES, [entry_ids])
        for entry_id, *posting in cursor.fetchall():
            by_entry.setdefault(entry_id, []).append(PostingRow(*posting))
    return by_entry


def seals_insert(*, entry_ids: list[int], previous_hashes: list[str], hashes: list[str]) -> None:
    """Append these links to the chain, in this order (their sequence numbers follow it)."""
    with connection.cursor() as cursor:
        cursor.execute(SEALS_INSERT, [entry_ids, previous_hashes, hashes])


def seal_lock() -> None:
    """Take the sealer's lock until the end of the transaction (waits for another sealer)."""
    with connection.cursor() as cursor:
        cursor.execute(SEAL_LOCK, [SEAL_LOCK_ID])


def snapshot_read_only() -> None:
    """First statement of a transaction: every later read sees one snapshot, and nothing is written."""
    with connection.cursor() as cursor:
        cursor.execute(SNAPSHOT_READ_ONLY)
