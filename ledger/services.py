"""Writes to the ledger. Every money movement of the service goes through `ledger_post`."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import defaultdict
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.actors import Actor
from core.errors import (
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    InvalidInput,
    StateConflict,
)
from ledger.models import (
    GUARDED_KINDS,
    Account,
    AccountKind,
    Adjustment,
    AdjustmentStatus,
    Direction,
    EntryKind,
    EntrySeal,
    JournalEntry,
    Posting,
)
from ledger.money import MAX_MINOR_UNITS, minor_units

HOUSE_SHARDS = 32
GENESIS_HASH = "0" * 64
SEAL_LOCK_ID = 7_461_001


@dataclass(frozen=True, slots=True)
class Line:
    """One side of an entry: `amount` > 0 credits the account, < 0 debits it."""

    account: Account
    amount: int


# --- Accounts ------------------------------------------------------------------------------------


# Account lookups sit on every round's path (placing and settling), so they are one plain
# statement each; an account is made through the ORM only the first time it is missing.
_ACCOUNT_COLUMNS = ("id", "kind", "currency", "player_id", "partner_id", "shard")


def _accounts_where(condition: str, params: list) -> list[Account]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(_ACCOUNT_COLUMNS)} FROM ledger_account WHERE {condition}", params)
        return [Account.from_db(connection.alias, _ACCOUNT_COLUMNS, row) for row in cursor.fetchall()]


def _system_account(*, kind: AccountKind, currency: str, shard: int = 0) -> Account:
    # Not cached across requests: a cached id could outlive a rolled-back transaction or a restore.
    found = _accounts_where(
        "kind = %s AND currency = %s AND shard = %s AND player_id IS NULL AND partner_id IS NULL",
        [str(kind), currency, shard],
    )
    if found:
        return found[0]
    account, _ = Account.objects.get_or_create(kind=kind, currency=currency, shard=shard, player=None, partner=None)
    return account


def house_account(*, currency: str, spread_by: str = "") -> Account:
    """A shard of the house bankroll, chosen from `spread_by` (stable, so that retries agree)."""
    return _system_account(
        kind=AccountKind.HOUSE, currency=currency, shard=zlib.crc32(spread_by.encode()) % HOUSE_SHARDS
    )


def outside_account(*, currency: str) -> Account:
    return _system_account(kind=AccountKind.OUTSIDE, currency=currency)


def player_accounts_open(*, player) -> tuple[Account, Account]:
    """The player's wallet and money-in-play accounts, created together (adjacent primary keys)."""
    accounts = {a.kind: a for a in _accounts_where("player_id = %s AND currency = %s", [player.pk, player.currency])}
    if len(accounts) < 2:
        with transaction.atomic():
            for kind in (AccountKind.PLAYER_WALLET, AccountKind.PLAYER_IN_PLAY):
                if kind not in accounts:
                    accounts[kind], _ = Account.objects.get_or_create(
                        kind=kind, currency=player.currency, player=player
                    )
    return accounts[AccountKind.PLAYER_WALLET], accounts[AccountKind.PLAYER_IN_PLAY]


def partner_account_open(*, partner, currency: str) -> Account:
    account, _ = Account.objects.get_or_create(kind=AccountKind.PARTNER, currency=currency, partner=partner)
    return account


# --- Posting -------------------------------------------------------------------------------------


def _request_hash(*, kind: str, lines: Iterable[Line], reference_type: str, reference_id: str, reverses_id) -> str:
    content = {
        "kind": str(kind),
        "lines": sorted((line.account.id, line.amount) for line in lines),
        "reference": [reference_type, reference_id],
        "reverses": reverses_id,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def _apply_delta(*, account: Account, delta: int) -> int:
    """Add `delta` to the cached balance; a guarded account refuses to go below zero.

    A conditional UPDATE takes the row lock and checks the balance in one statement, so concurrent
    debits of one wallet serialise on the row and never overdraw it.
    """
    with connection.cursor() as cursor:
        if account.kind in GUARDED_KINDS:
            cursor.execute(
                "UPDATE ledger_account SET balance = balance + %s"
                " WHERE id = %s AND balance + %s >= 0 RETURNING balance",
                [delta, account.id, delta],
            )
        else:
            cursor.execute(
                "UPDATE ledger_account SET balance = balance + %s WHERE id = %s RETURNING balance",
                [delta, account.id],
            )
        row = cursor.fetchone()
    if row is None:
        if account.kind not in GUARDED_KINDS:
            raise Account.DoesNotExist(f"ledger account {account.id} does not exist")
        raise InsufficientFunds(gettext("the wallet does not hold enough money for this"))
    return row[0]


def ledger_post(
    *,
    idempotency_key: str,
    kind: EntryKind,
    lines: list[Line],
    actor: Actor,
    reason: str = "",
    reference_type: str = "",
    reference_id: str = "",
    reverses: JournalEntry | None = None,
) -> JournalEntry:
    """Post one balanced entry, exactly once per idempotency key.

    The same key with the same content returns the original entry; with other content it is
    `idempotency_conflict`. A guarded account that would go below zero is `insufficient_funds`,
    and nothing is written.
    """
    if not idempotency_key or len(idempotency_key) > 300:
        raise InvalidInput(gettext("an idempotency key is 1 to 300 characters"))
    if len(lines) < 2:
        raise InvalidInput(gettext("an entry has at least two lines"))
    totals: dict[str, int] = defaultdict(int)
    deltas: dict[int, int] = defaultdict(int)
    accounts: dict[int, Account] = {}
    for line in lines:
        if type(line.amount) is not int or line.amount == 0 or abs(line.amount) > MAX_MINOR_UNITS:
            raise InvalidAmount(gettext("each line moves a non-zero integer of minor units"))
        totals[line.account.currency] += line.amount
        deltas[line.account.id] += line.amount
        accounts[line.account.id] = line.account
    if any(totals.values()):
        raise CurrencyMismatch(gettext("the entry does not balance in every currency"))
    request_hash = _request_hash(
        kind=kind, lines=lines, reference_type=reference_type, reference_id=reference_id,
        reverses_id=reverses.id if reverses else None,
    )  # fmt: skip

    entry_fields = {
        "idempotency_key": idempotency_key,
        "request_hash": request_hash,
        "kind": kind,
        "reason": reason[:500],
        "actor_type": actor.type,
        "actor_id": str(actor.id)[:64],
        "reference_type": reference_type,
        "reference_id": str(reference_id),
        "reverses": reverses,
    }
    if connection.vendor == "postgresql" and POSTING_BACKEND == "database":
        return _post_in_database(entry_fields, lines)
    return _post_in_python(entry_fields, lines, accounts, deltas)


# Which implementation posts on PostgreSQL: "database" (one round trip to ledger_post_entry) or
# "python" (the portable path SQLite uses). Tests run both on PostgreSQL.
POSTING_BACKEND = "database"


def _post_in_database(fields: dict, lines: list[Line]) -> JournalEntry:
    # Outside a transaction the call is one autocommit statement (its deferred checks run at its
    # commit); inside one it joins it under a savepoint, so a refusal leaves the caller's
    # transaction usable, as on the Python path.
    scope = transaction.atomic() if connection.in_atomic_block else nullcontext()
    with scope, connection.cursor() as cursor:
        try:
            cursor.execute(
                "SELECT entry_id, existing_hash FROM ledger_post_entry("
                "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    fields["idempotency_key"], fields["request_hash"], str(fields["kind"]), fields["reason"],
                    str(fields["actor_type"]), fields["actor_id"], fields["reference_type"], fields["reference_id"],
                    fields["reverses"].id if fields["reverses"] else None,
                    [line.account.id for line in lines], [line.amount for line in lines],
                    [line.account.currency for line in lines],
                ],
            )  # fmt: skip
        except DatabaseError as exc:
            sqlstate = getattr(getattr(exc, "__cause__", None), "sqlstate", None)
            if sqlstate == "LDG01":
                raise InsufficientFunds(gettext("the wallet does not hold enough money for this")) from None
            if sqlstate == "LDG02":
                raise Account.DoesNotExist(str(exc)) from None
            raise
        entry_id, existing_hash = cursor.fetchone()
    if existing_hash is not None:
        if existing_hash != fields["request_hash"]:
            raise IdempotencyConflict(gettext("this idempotency key was already used for a different movement"))
        return JournalEntry.objects.get(pk=entry_id)
    return JournalEntry(id=entry_id, **fields)


def _post_in_python(fields: dict, lines: list[Line], accounts: dict, deltas: dict) -> JournalEntry:
    idempotency_key = fields["idempotency_key"]
    existing = JournalEntry.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return _replayed(existing, fields["request_hash"])
    try:
        with transaction.atomic():
            # The entry is inserted first: it claims the key, so a concurrent twin waits on the
            # unique index instead of moving money a second time.
            entry = JournalEntry.objects.create(**fields)
            balances = {
                account_id: _apply_delta(account=accounts[account_id], delta=delta)
                for account_id, delta in sorted(deltas.items())  # rows locked in primary-key order
                if delta
            }
            running = dict(balances)
            postings = []
            # balance_after walks back from the final balance so that two lines on one account
            # show the balance after each of them.
            for line in reversed(lines):
                account_id = line.account.id
                after = running.get(account_id)
                if after is None:
                    after = Account.objects.values_list("balance", flat=True).get(id=account_id)
                    running[account_id] = after
                postings.append(
                    Posting(
                        entry=entry,
                        account_id=account_id,
                        direction=Direction.CREDIT if line.amount > 0 else Direction.DEBIT,
                        amount=abs(line.amount),
                        currency=line.account.currency,
                        balance_after=after,
                    )
                )
                running[account_id] = after - line.amount
            postings.reverse()
            Posting.objects.bulk_create(postings)
    except IntegrityError:
        existing = JournalEntry.objects.filter(idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return _replayed(existing, fields["request_hash"])
    return entry


def _replayed(existing: JournalEntry, request_hash: str) -> JournalEntry:
    if existing.request_hash != request_hash:
        raise IdempotencyConflict(gettext("this idempotency key was already used for a different movement"))
    return existing


def ledger_reverse(*, entry: JournalEntry, reason: str, actor: Actor) -> JournalEntry:
    """A correction: a new entry with every line of `entry` reversed, linked to it."""
    if not reason.strip():
        raise InvalidInput(gettext("a reversal needs a reason"))
    lines = [Line(account=p.account, amount=-p.signed_amount) for p in entry.postings.select_related("account")]
    return ledger_post(
        idempotency_key=f"reversal:{entry.id}",
        kind=EntryKind.REVERSAL,
        lines=lines,
        actor=actor,
        reason=reason,
        reference_type=entry.reference_type,
        reference_id=entry.reference_id,
        reverses=entry,
    )


# --- Common movements ----------------------------------------------------------------------------


def wallet_deposit(*, player, amount: int, idempotency_key: str, actor: Actor, reason: str = "") -> JournalEntry:
    """Money from the outside world into a player's wallet (play money in demo mode, cash in)."""
    amount = minor_units(amount)
    wallet, _ = player_accounts_open(player=player)
    return ledger_post(
        idempotency_key=idempotency_key,
        kind=EntryKind.DEPOSIT,
        lines=[Line(outside_account(currency=wallet.currency), -amount), Line(wallet, amount)],
        actor=actor,
        reason=reason,
        reference_type="player",
        reference_id=str(player.pk),
    )


def stake_into_play(*, player, amount: int, idempotency_key: str, actor: Actor, reason: str,
                    reference_type: str, reference_id: str) -> JournalEntry:  # fmt: skip
    """Stakes leave the wallet for the player's money in play (refused beyond the balance)."""
    wallet, in_play = player_accounts_open(player=player)
    return ledger_post(
        idempotency_key=idempotency_key, kind=EntryKind.STAKE, lines=[Line(wallet, -amount), Line(in_play, amount)],
        actor=actor, reason=reason, reference_type=reference_type, reference_id=reference_id,
    )  # fmt: skip


def stakes_settle(*, player, currency: str, staked: int, payout: int, idempotency_key: str, actor: Actor,
                  reason: str, reference_type: str, reference_id: str) -> JournalEntry:  # fmt: skip
    """Everything staked leaves money in play: the payout to the wallet, the rest to the house
    (or the house pays what the payout exceeds the stakes by)."""
    if type(staked) is not int or type(payout) is not int or staked <= 0 or payout < 0:
        raise InvalidAmount(gettext("stakes are positive and a payout is not negative"))
    wallet, in_play = player_accounts_open(player=player)
    lines = [Line(in_play, -staked)]
    if payout:
        lines.append(Line(wallet, payout))
    if staked != payout:
        lines.append(Line(house_account(currency=currency, spread_by=idempotency_key), staked - payout))
    return ledger_post(
        idempotency_key=idempotency_key, kind=EntryKind.SETTLEMENT, lines=lines, actor=actor, reason=reason,
        reference_type=reference_type, reference_id=reference_id,
    )  # fmt: skip


def partner_transfer_post(*, partner, player, amount: int, into_wallet: bool, idempotency_key: str, actor: Actor,
                          reason: str, reference_id: str) -> JournalEntry:  # fmt: skip
    """Money between a partner's settlement account and its player's wallet (`out` beyond the
    wallet's balance is refused)."""
    wallet, _ = player_accounts_open(player=player)
    clearing = partner_account_open(partner=partner, currency=player.currency)
    sign = 1 if into_wallet else -1
    return ledger_post(
        idempotency_key=idempotency_key,
        kind=EntryKind.TRANSFER_IN if into_wallet else EntryKind.TRANSFER_OUT,
        lines=[Line(clearing, -sign * amount), Line(wallet, sign * amount)],
        actor=actor, reason=reason, reference_type="transfer", reference_id=reference_id,
    )  # fmt: skip


# --- Maker-checker adjustments -------------------------------------------------------------------


def adjustment_propose(*, player, amount: int, reason: str, proposed_by) -> Adjustment:
    if type(amount) is not int or amount == 0 or abs(amount) > MAX_MINOR_UNITS:
        raise InvalidAmount(gettext("an adjustment is a non-zero integer of minor units"))
    if not reason.strip():
        raise InvalidInput(gettext("an adjustment needs a reason"))
    return Adjustment.objects.create(
        player=player, amount=amount, currency=player.currency, reason=reason.strip(), proposed_by=proposed_by
    )


def adjustment_approve(*, adjustment: Adjustment, approved_by) -> Adjustment:
    """Post the adjustment. The approver must be another staff member than the proposer."""
    with transaction.atomic():
        adjustment = Adjustment.objects.select_for_update().get(pk=adjustment.pk)
        if adjustment.status != AdjustmentStatus.PROPOSED:
            raise StateConflict(gettext("this adjustment was already decided"))
        if adjustment.proposed_by_id == approved_by.pk:
            raise StateConflict(gettext("a different staff member must approve an adjustment (four eyes)"))
        wallet, _ = player_accounts_open(player=adjustment.player)
        house = house_account(currency=adjustment.currency, spread_by=f"adjustment:{adjustment.pk}")
        entry = ledger_post(
            idempotency_key=f"adjustment:{adjustment.pk}",
            kind=EntryKind.ADJUSTMENT,
            lines=[Line(house, -adjustment.amount), Line(wallet, adjustment.amount)],
            actor=Actor.operator(approved_by),
            reason=f"{adjustment.reason} (proposed by {adjustment.proposed_by}, approved by {approved_by})",
            reference_type="adjustment",
            reference_id=str(adjustment.pk),
        )
        adjustment.status = AdjustmentStatus.APPROVED
        adjustment.decided_by = approved_by
        adjustment.decided_at = timezone.now()
        adjustment.entry = entry
        adjustment.save(update_fields=["status", "decided_by", "decided_at", "entry"])
    return adjustment


def adjustment_reject(*, adjustment: Adjustment, rejected_by) -> Adjustment:
    with transaction.atomic():
        adjustment = Adjustment.objects.select_for_update().get(pk=adjustment.pk)
        if adjustment.status != AdjustmentStatus.PROPOSED:
            raise StateConflict(gettext("this adjustment was already decided"))
        if adjustment.proposed_by_id == rejected_by.pk:
            raise StateConflict(gettext("a different staff member must decide an adjustment (four eyes)"))
        adjustment.status = AdjustmentStatus.REJECTED
        adjustment.decided_by = rejected_by
        adjustment.decided_at = timezone.now()
        adjustment.save(update_fields=["status", "decided_by", "decided_at"])
    return adjustment


# --- The hash chain ------------------------------------------------------------------------------


def entry_content_hash(entry: JournalEntry, postings: Iterable[Posting], previous_hash: str) -> str:
    """SHA-256 over the previous link and everything the entry says; any change breaks the chain."""
    content = {
        "previous": previous_hash,
        "id": entry.id,
        "key": entry.idempotency_key,
        "kind": entry.kind,
        "reason": entry.reason,
        "actor": [entry.actor_type, entry.actor_id],
        "reference": [entry.reference_type, entry.reference_id],
        "reverses": entry.reverses_id,
        "created_at": entry.created_at.isoformat(),
        "postings": sorted((p.id, p.account_id, p.direction, p.amount, p.currency, p.balance_after) for p in postings),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def ledger_seal(*, batch: int = 5000) -> int:
    """Append the entries not sealed yet to the hash chain; returns how many were sealed.

    One sealer at a time: on PostgreSQL a transaction-level advisory lock (a row lock on the old
    head would let a second sealer, once released, build on a stale head and fork the chain);
    SQLite serialises writers anyway.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEAL_LOCK_ID])
        head = EntrySeal.objects.order_by("-sequence").first()
        previous = head.hash if head else GENESIS_HASH
        entries = JournalEntry.objects.filter(seal__isnull=True).order_by("id").prefetch_related("postings")[:batch]
        seals = []
        for entry in entries:
            link = entry_content_hash(entry, entry.postings.all(), previous)
            seals.append(EntrySeal(entry=entry, previous_hash=previous, hash=link))
            previous = link
        EntrySeal.objects.bulk_create(seals)
    return len(seals)
