"""Every hand-written SQL statement the casino runs, one named function each, each tested in
`tests/casino/test_sql.py`. They are the statements of a round's path, which every round takes
(placing, deciding, settling): docs/BENCHMARKS.md has the figures that asked for them. The rest of
the casino reads and writes through the ORM.

The writes are functions of the schema, each in its file (`casino/sql/<function>.sql`, loaded by
the migrations: core/sql_functions.py); they move money only through the ledger's
`ledger_post_entries`. They record audit events through `core_audit_record`, one at a time, or,
for a batch (`casino_rounds_settle`, `casino_credits_record`), with one INSERT into
`core_auditevent` of the same columns.
"""

from __future__ import annotations

import functools
import json
import uuid
from datetime import datetime
from typing import NamedTuple

from django.db import connection

from accounts.models import Player
from casino.models import Round, SeedPair, Table, WalletCall
from core import sql as core_sql
from core.rows import instances_from_row, row_json, select_list

# SQLSTATEs raised by the round functions.
NONCE_TAKEN = "CSN01"
NOT_AWAITING_DECISION = "CSN02"


@functools.cache
def _round_open_sql(gate: str = "", locked: bool = True) -> str:
    # Not `locked`: read by a round whose statements each commit alone, which finds at its write
    # whether the pair's nonce is still the one it read (casino_round_place).
    return (
        f"SELECT {select_list(SeedPair, 'sp')}, {select_list(Table, 't')}, g.excluded, g.limits, a.wallet_id,"
        " a.in_play_id"
        f" FROM {SeedPair._meta.db_table} sp JOIN {Table._meta.db_table} t ON t.id = %s"
        " CROSS JOIN protection_stake_guards(sp.player_id, %s, %s) AS g"
        " CROSS JOIN ledger_player_accounts(sp.player_id, %s) AS a"
        f" WHERE sp.player_id = %s AND sp.active{gate}{' FOR UPDATE OF sp' if locked else ''}"
    )


class Opened(NamedTuple):
    """What the first statement of placing a round read (`round_open`)."""

    pair: SeedPair  # locked
    table: Table
    excluded: bool
    limits: list  # protection_stake_guards' limits in force
    wallet_id: int
    in_play_id: int


def _opened(row) -> Opened | None:
    if row is None or row[0] is None:  # no active pair or no such table (the claim's outer join: all NULL)
        return None
    pair, table = instances_from_row(row[:-4], (SeedPair, Table))
    excluded, limits, wallet_id, in_play_id = row[-4:]
    return Opened(pair, table, excluded, json.loads(limits), wallet_id, in_play_id)  # jsonb comes as text in Django


def round_open(
    *, player_id: int, currency: str, table_id: int, guard_kinds: list[str], at: datetime, locked: bool = True
) -> Opened | None:
    """The first statement of placing a round: lock the player's active seed pair (a player's rounds
    run one at a time, and every one gets its own nonce; not `locked`, read only), and read the
    table, the player's exclusion and limits in force of `guard_kinds` (protection's rules,
    `protection_stake_guards`) and its wallet and money-in-play account ids; None when the player
    has no active pair or the table does not exist."""
    with connection.cursor() as cursor:
        cursor.execute(_round_open_sql(locked=locked), [table_id, guard_kinds, at, currency, player_id])
        return _opened(cursor.fetchone())


# Read only if the claim took the key and found no response: a retry or a concurrent twin does not
# wait for the player's pair (nor, for a seamless stake, look for its debit).
_CLAIM_TOOK_THE_KEY = "claim.free AND claim.request_hash IS NULL"


@functools.cache
def _round_open_claiming_sql(more_columns: str = "", more_joins: str = "", locked: bool = True) -> str:
    # The claim, and the round opened (the pair locked, if `locked`) only if the claim took the key;
    # with `more_columns` read from `more_joins` after the opening's (a seamless stake's).
    opened = _round_open_sql(gate=f" AND {_CLAIM_TOOK_THE_KEY}", locked=locked)
    return (
        f"SELECT {core_sql.IDEMPOTENCY_CLAIM_COLUMNS}, o.*{more_columns} FROM {core_sql.IDEMPOTENCY_CLAIM_FROM}"
        f" LEFT JOIN LATERAL ({opened}) AS o ON true{more_joins}"
    )


class ClaimedOpening(NamedTuple):
    claim: tuple  # the claim's columns, core.sql.IDEMPOTENCY_CLAIM_COLUMNS (RequestKey.claimed reads them)
    opened: Opened | None  # None: the claim did not take the key, or as `round_open`


def round_open_claiming(
    *,
    claim: list,
    player_id: int,
    currency: str,
    table_id: int,
    guard_kinds: list[str],
    at: datetime,
    locked: bool = True,
) -> ClaimedOpening:
    """`round_open` and the request's idempotency claim in one statement (`claim`: the parameters
    of core.sql's claim). The round is opened only if this request took the key and no response
    is stored for it."""
    with connection.cursor() as cursor:
        cursor.execute(
            _round_open_claiming_sql(locked=locked), [*claim, table_id, guard_kinds, at, currency, player_id]
        )
        row = cursor.fetchone()
    width = core_sql.IDEMPOTENCY_CLAIM_COLUMN_COUNT  # the claim's columns come first
    return ClaimedOpening(row[:width], _opened(row[width:]))


@functools.cache
def _seamless_stake_open_sql() -> str:
    # As `_round_open_claiming_sql`, and with it (read only if the claim took the key) whether a
    # debit was made for this request already, and the shard of the partner's seamless account that
    # the player's money moves through. The pair is read without its lock: the statement commits
    # alone, so a lock would end with it, and the round placed on this read counts the nonce only
    # if no other round came in between (casino_round_place).
    return _round_open_claiming_sql(
        ", d.debit_made, s.id",
        " LEFT JOIN LATERAL (SELECT EXISTS (SELECT FROM casino_walletcall c WHERE c.request_scope = %s"
        " AND c.request_key = %s AND c.request_key <> '') AS debit_made"
        f" WHERE {_CLAIM_TOOK_THE_KEY}) AS d ON true"
        " LEFT JOIN ledger_account s ON s.kind = 'partner_seamless' AND s.partner_id = %s AND s.currency = %s"
        " AND s.shard = %s",
        locked=False,
    )


class StakeOpening(NamedTuple):
    claim: tuple  # the claim's columns, core.sql.IDEMPOTENCY_CLAIM_COLUMNS (RequestKey.claimed reads them)
    opened: Opened | None  # None: the claim did not take the key, or as `round_open`
    debit_made: bool  # a debit of this request exists already (its first attempt died, or runs still)
    seamless_account_id: int | None  # None: the partner's seamless account has no such shard yet


def seamless_stake_open(
    *,
    claim: list,
    player_id: int,
    currency: str,
    table_id: int,
    guard_kinds: list[str],
    at: datetime,
    request_scope: str,
    request_key: str,
    partner_id: int,
    seamless_shard: int,
) -> StakeOpening:
    """The first statement of a seamless stake, before the partner's wallet is called: the request's
    idempotency claim (its nonce recorded), what the round's checks need (as `round_open_claiming`),
    whether this request made a debit already, and the partner's seamless account's shard."""
    with connection.cursor() as cursor:
        cursor.execute(
            _seamless_stake_open_sql(),
            [
                *claim,
                table_id,
                guard_kinds,
                at,
                currency,
                player_id,
                request_scope,
                request_key,
                partner_id,
                currency,
                seamless_shard,
            ],
        )
        row = cursor.fetchone()
    width = core_sql.IDEMPOTENCY_CLAIM_COLUMN_COUNT
    return StakeOpening(row[:width], _opened(row[width:-2]), bool(row[-2]), row[-1])


WALLET_DEBIT_CREATE = "SELECT casino_wallet_debit_create(%s::jsonb)"


def wallet_debit_create(*, call: WalletCall) -> bool:
    """Write a pending debit and its audit event (casino/sql/casino_wallet_debit_create.sql); False,
    with nothing written, if a debit of the same request (scope and key) exists already."""
    with connection.cursor() as cursor:
        cursor.execute(WALLET_DEBIT_CREATE, [json.dumps(row_json(call))])
        return bool(cursor.fetchone()[0])


@functools.cache
def _rounds_for_decision_sql(skip_locked: bool, several: bool = False) -> str:
    return (
        f"SELECT {select_list(Round, 'r')}, {select_list(SeedPair, 'sp')}, {select_list(Player, 'p')}, a.wallet_id,"
        f" a.in_play_id FROM {Round._meta.db_table} r JOIN {SeedPair._meta.db_table} sp ON sp.id = r.seed_pair_id"
        f" JOIN {Player._meta.db_table} p ON p.id = r.player_id"
        " CROSS JOIN ledger_player_accounts(r.player_id, r.currency) AS a"
        f" WHERE {'r.id = ANY (%s)' if several else 'r.id = %s'} AND (%s::bigint IS NULL OR r.player_id = %s)"
        " AND (%s::text IS NULL OR r.status = %s)"
        f"{' ORDER BY r.decision_deadline' if several else ''} FOR UPDATE OF r{' SKIP LOCKED' if skip_locked else ''}"
    )


class ForDecision(NamedTuple):
    """A round read for its decision (locked), with its player's account ids."""

    round: Round  # its seed pair and player read with it
    wallet_id: int
    in_play_id: int


def _for_decision(row) -> ForDecision:
    round_, pair, player = instances_from_row(row[:-2], (Round, SeedPair, Player))
    Round.seed_pair.field.set_cached_value(round_, pair)
    Round.player.field.set_cached_value(round_, player)
    return ForDecision(round_, row[-2], row[-1])


def round_for_decision(
    *, round_id: uuid.UUID, player_id: int | None = None, status: str | None = None, skip_locked: bool = False
) -> ForDecision | None:
    """The round (of this player, in this status, if given) with its row lock, its seed pair and
    player, and the player's wallet and money-in-play account ids; None if there is none (or,
    `skip_locked`, if another transaction holds it)."""
    with connection.cursor() as cursor:
        cursor.execute(_rounds_for_decision_sql(skip_locked), [round_id, player_id, player_id, status, status])
        row = cursor.fetchone()
    return None if row is None else _for_decision(row)


def rounds_for_decision(*, round_ids: list[uuid.UUID], status: str) -> list[ForDecision]:
    """`round_for_decision` for several rounds in one statement, those another transaction holds
    left out (SKIP LOCKED), in the order of their decision deadlines."""
    with connection.cursor() as cursor:
        cursor.execute(_rounds_for_decision_sql(True, several=True), [round_ids, None, None, status, status])
        return [_for_decision(row) for row in cursor.fetchall()]


ROUND_PLACE = "SELECT casino_round_place(%s::jsonb, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb)"
ROUND_PLACE_STORING = f"{ROUND_PLACE}, {core_sql.IDEMPOTENCY_STORE_CALL}"
# SQLSTATEs of a seamless round's debit found no longer pending when the round is placed.
DEBIT_GIVEN_UP = "CSN04"
DEBIT_REFUSED = "CSN05"


class Funding(NamedTuple):
    """A seamless stake's funding: the debit the partner answered 200 to (`debit_id`, its answer
    `debit_answer`: status_code, error, answer, duration_ms, balance), acknowledged and paid from
    the partner's seamless account (`account_id`) into the wallet, posted with the stake."""

    key: str
    reason: str
    account_id: int
    debit_id: uuid.UUID
    debit_answer: dict


def round_place(
    *,
    round_: Round,
    audit: dict,
    stake_key: str,
    stake_reason: str,
    wallet_id: int,
    in_play_id: int,
    stake: int,
    store: list | None = None,
    funding: Funding | None = None,
) -> bool | None:
    """Write a dealt round: its nonce counted, the round, its audit event, its stake posted (after
    its `funding`, if given, in the same posting, its debit acknowledged first;
    casino/sql/casino_round_place.sql); with `store`
    (the parameters of core.sql's store), the request's response stored in the same statement, and
    whether it was (False: a response was stored already). Raises a DatabaseError with SQLSTATE
    NONCE_TAKEN, DEBIT_GIVEN_UP, DEBIT_REFUSED or the ledger's INSUFFICIENT_FUNDS, having written
    nothing."""
    params = [
        json.dumps(row_json(round_)),
        json.dumps(audit),
        stake_key,
        stake_reason,
        wallet_id,
        in_play_id,
        stake,
        *((funding.key, funding.reason, funding.account_id) if funding else (None, None, None)),
        funding.debit_id if funding else None,
        json.dumps(funding.debit_answer) if funding else None,
    ]
    with connection.cursor() as cursor:
        if store is None:
            cursor.execute(ROUND_PLACE, params)
            return None
        cursor.execute(ROUND_PLACE_STORING, [*params, *store])
        return bool(cursor.fetchone()[1])


ROUND_DECIDE = "SELECT casino_round_decide(%s::jsonb, %s::jsonb, %s, %s, %s)"
ROUNDS_DECIDE = "SELECT casino_rounds_decide(%s::jsonb, %s::jsonb, %s, %s, %s)"


def round_decide(*, round_: Round, audit: dict, raise_key: str | None, wallet_id: int, in_play_id: int) -> None:
    """Write a decision and the result it led to on a round awaiting one, its audit event, and the
    raise (`raise_key` given: the player went to war). Raises a DatabaseError with SQLSTATE
    NOT_AWAITING_DECISION or the ledger's INSUFFICIENT_FUNDS, having written nothing."""
    with connection.cursor() as cursor:
        row, audit = json.dumps(row_json(round_)), json.dumps(audit)
        cursor.execute(ROUND_DECIDE, [row, audit, raise_key, wallet_id, in_play_id])


class Decision(NamedTuple):
    round_: Round  # as decided
    audit: dict
    raise_key: str | None
    wallet_id: int
    in_play_id: int


def rounds_decide(*, decisions: list[Decision]) -> None:
    """`round_decide` for several rounds in one statement: every round, its audit event and its
    raise, or (the same refusals) none of them."""
    with connection.cursor() as cursor:
        cursor.execute(
            ROUNDS_DECIDE,
            [
                json.dumps([row_json(d.round_) for d in decisions]),
                json.dumps([d.audit for d in decisions]),
                [d.raise_key for d in decisions],
                [d.wallet_id for d in decisions],
                [d.in_play_id for d in decisions],
            ],
        )


ROUNDS_SETTLE = "SELECT settled_round, webhook_partner, credit_call FROM casino_rounds_settle(%s, %s, %s)"


class Settled(NamedTuple):
    rounds: list[tuple[uuid.UUID, int | None]]  # each settled round, with its partner if it takes webhooks now
    credits: list[uuid.UUID]  # the seamless rounds' credits recorded, to be sent after commit


def rounds_settle(*, ids: list[uuid.UUID] | None, resolved_before: datetime, limit: int) -> Settled:
    """Settle resolved rounds, transfer and seamless alike, in one statement
    (casino/sql/casino_rounds_settle.sql): these `ids`, or else the oldest resolved before
    `resolved_before`, at most `limit`. Another batch running and a round another transaction
    holds are left alone, not waited for; the accounts are locked last, by the posting."""
    with connection.cursor() as cursor:
        cursor.execute(ROUNDS_SETTLE, [ids, resolved_before, limit])
        rows = cursor.fetchall()
    return Settled(
        [(round_id, partner) for round_id, partner, _ in rows],
        [credit for _, _, credit in rows if credit is not None],
    )


CREDITS_CLAIM = (
    "WITH due AS MATERIALIZED (SELECT id FROM casino_walletcall WHERE status = 'pending' AND kind = 'credit'"
    " AND next_attempt_at <= %s ORDER BY next_attempt_at LIMIT %s FOR UPDATE SKIP LOCKED)"
    " UPDATE casino_walletcall c SET next_attempt_at = %s FROM due, accounts_partner p"
    " WHERE c.id = due.id AND p.id = c.partner_id"
    " RETURNING c.id, c.kind, c.transaction_id, c.request_body, c.attempts, p.wallet_url, p.secret"
)


class ClaimedCall(NamedTuple):
    """What sending a claimed call and recording its answer need: the call, and its partner's
    `wallet_url` and `secret` (it stands for the partner in casino/services/wallets.py's call)."""

    id: uuid.UUID
    kind: str
    transaction_id: str
    request_body: dict
    attempts: int
    wallet_url: str
    secret: str


def credits_claim(*, due_by: datetime, leased_until: datetime, limit: int) -> list[ClaimedCall]:
    """The pending credits due by `due_by` (at most `limit`, the oldest due first; those another
    transaction holds left out), leased until `leased_until`, in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(CREDITS_CLAIM, [due_by, limit, leased_until])
        rows = cursor.fetchall()
    # jsonb comes as text in Django's raw cursor
    return [ClaimedCall(id_, kind, tid, json.loads(body), *rest) for id_, kind, tid, body, *rest in rows]


CREDITS_RECORD = (
    "SELECT call_id, recorded, call_status, settled_round, webhook_partner FROM casino_credits_record(%s::uuid[],"
    " %s::integer[], %s::text[], %s::text[], %s::integer[], %s::bigint[], %s::boolean[], %s::timestamptz[])"
)


class CallAnswer(NamedTuple):
    """An attempt of a credit or rollback, as its call keeps it (casino/services/wallets.py)."""

    call_id: uuid.UUID
    status_code: int | None
    error: str
    answer: str
    duration_ms: int
    balance: int | None  # None: the answer is not believed (nor the call's balance changed)
    acknowledged: bool
    next_attempt_at: datetime  # the call's next attempt, if not acknowledged


class CallRecorded(NamedTuple):
    call_id: uuid.UUID
    recorded: bool  # False: the call was no longer pending (or is missing), nothing written
    status: str | None  # the call's status now
    settled_round: uuid.UUID | None  # the round this statement settled (an acknowledged credit's)
    webhook_partner: int | None  # that round's partner, when it takes webhooks


def credits_record(*, answers: list[CallAnswer]) -> list[CallRecorded]:
    """Record a batch of attempts in one statement (casino/sql/casino_credits_record.sql): of the
    calls still pending, each its attempt, its fields and, acknowledged, its audit event; the
    acknowledged credits' rounds settled, each with its audit event. A row per call."""
    columns = [list(column) for column in zip(*answers, strict=True)] if answers else [[]] * len(CallAnswer._fields)
    with connection.cursor() as cursor:
        cursor.execute(CREDITS_RECORD, columns)
        return [CallRecorded(*row) for row in cursor.fetchall()]
