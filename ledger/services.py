"""Writes to the ledger. Every money movement of the service goes through `ledger_post`."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from django.db import DatabaseError, connection, transaction
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
from ledger import sql
from ledger.models import (
    Account,
    AccountKind,
    Adjustment,
    AdjustmentStatus,
    EntryKind,
    JournalEntry,
    Posting,
)
from ledger.money import MAX_MINOR_UNITS, minor_units

if TYPE_CHECKING:  # accounts is above ledger (pyproject's layers): for the annotations only
    from accounts.models import Partner, Player, User

# A seamless partner's account is sharded by player, so that no row is locked by all its rounds.
SEAMLESS_SHARDS = 32
GENESIS_HASH = "0" * 64


@dataclass(frozen=True, slots=True)
class Line:
    """One side of an entry: `amount` > 0 credits the account, < 0 debits it."""

    account: Account
    amount: int


# --- Accounts ------------------------------------------------------------------------------------


# Account lookups sit on every round's path (placing and settling), so they are one plain
# statement each (ledger/sql/); an account is made through the ORM only the first time it is missing.


def _system_account(*, kind: AccountKind, currency: str, shard: int = 0) -> Account:
    # Not cached across requests: a cached id could outlive a rolled-back transaction or a restore.
    found = sql.system_account(kind=str(kind), currency=currency, shard=shard)
    if found is not None:
        return found
    account, _ = Account.objects.get_or_create(kind=kind, currency=currency, shard=shard, player=None, partner=None)
    return account


def house_account(*, currency: str, spread_by: str = "") -> Account:
    """The shard of the house bankroll that the movement keyed `spread_by` posts to (the same for
    the same key, so that retries agree): the database's one rule, `ledger_house_shard`, which
    settlement in SQL follows too. One statement, which opens the shard the first time."""
    return sql.house_account(currency=currency, key=spread_by)


def outside_account(*, currency: str) -> Account:
    return _system_account(kind=AccountKind.OUTSIDE, currency=currency)


class PlayerAccounts(NamedTuple):
    wallet: Account
    in_play: Account


def player_accounts_open(*, player: Player) -> PlayerAccounts:
    """The player's wallet and money-in-play accounts, created together (adjacent primary keys)."""
    accounts = {a.kind: a for a in sql.accounts_of_player(player_id=player.pk, currency=player.currency)}
    if len(accounts) < 2:
        with transaction.atomic():
            for kind in (AccountKind.PLAYER_WALLET, AccountKind.PLAYER_IN_PLAY):
                if kind not in accounts:
                    accounts[kind], _ = Account.objects.get_or_create(
                        kind=kind, currency=player.currency, player=player
                    )
    return PlayerAccounts(wallet=accounts[AccountKind.PLAYER_WALLET], in_play=accounts[AccountKind.PLAYER_IN_PLAY])


def partner_account_open(*, partner: Partner, currency: str) -> Account:
    account, _ = Account.objects.get_or_create(kind=AccountKind.PARTNER, currency=currency, partner=partner)
    return account


# --- Posting -------------------------------------------------------------------------------------


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
    for line in lines:
        if type(line.amount) is not int or line.amount == 0 or abs(line.amount) > MAX_MINOR_UNITS:
            raise InvalidAmount(gettext("each line moves a non-zero integer of minor units"))
        totals[line.account.currency] += line.amount
    if any(totals.values()):
        raise CurrencyMismatch(gettext("the entry does not balance in every currency"))

    # One round trip: ledger_post_entry (ledger/sql/ledger_post_entries.sql) claims the key by inserting the entry
    # first (a concurrent twin waits on the unique index, then finds it and compares the request
    # hash it computes), updates each account's cached balance in primary-key order (a player
    # account never below zero; rows always locked in the same order, so no deadlocks) and writes
    # the postings with their balance_after.
    # Outside a transaction it is one autocommit statement (its deferred checks run at its commit);
    # inside one it joins it under a savepoint, so a refusal leaves the caller's transaction usable.
    fields = {
        "idempotency_key": idempotency_key,
        "kind": kind,
        "reason": reason[:500],
        "actor_type": actor.type,
        "actor_id": str(actor.id)[:64],
        "reference_type": reference_type,
        "reference_id": str(reference_id),
    }
    scope = transaction.atomic() if connection.in_atomic_block else nullcontext()
    try:
        with scope:
            entry_id, outcome = sql.post_entry(
                **fields | {"kind": str(kind), "actor_type": str(actor.type)},  # the enums' database values
                reverses_id=reverses.id if reverses else None,
                account_ids=[line.account.id for line in lines],
                amounts=[line.amount for line in lines],
                currencies=[line.account.currency for line in lines],
            )
    except DatabaseError as exc:
        sqlstate = getattr(exc.__cause__, "sqlstate", None)
        if sqlstate == sql.INSUFFICIENT_FUNDS:
            raise InsufficientFunds(gettext("the wallet does not hold enough money for this")) from None
        if sqlstate == sql.MISSING_ACCOUNT:
            raise Account.DoesNotExist(str(exc)) from None
        raise
    if outcome == sql.POSTED:
        return JournalEntry(id=entry_id, reverses=reverses, **fields)
    if outcome == sql.CONFLICT:
        raise IdempotencyConflict(gettext("this idempotency key was already used for a different movement"))
    return JournalEntry.objects.get(pk=entry_id)


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


def wallet_deposit(
    *, player: Player, amount: int, idempotency_key: str, actor: Actor, reason: str = ""
) -> JournalEntry:
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


def stake_into_play(
    *,
    player: Player,
    amount: int,
    idempotency_key: str,
    actor: Actor,
    reason: str,
    reference_type: str,
    reference_id: str,
) -> JournalEntry:
    """Stakes leave the wallet for the player's money in play (refused beyond the balance)."""
    wallet, in_play = player_accounts_open(player=player)
    return ledger_post(
        idempotency_key=idempotency_key,
        kind=EntryKind.STAKE,
        lines=[Line(wallet, -amount), Line(in_play, amount)],
        actor=actor,
        reason=reason,
        reference_type=reference_type,
        reference_id=reference_id,
    )


def partner_transfer_post(
    *,
    partner: Partner,
    player: Player,
    amount: int,
    into_wallet: bool,
    idempotency_key: str,
    actor: Actor,
    reason: str,
    reference_id: str,
) -> JournalEntry:
    """Money between a partner's settlement account and its player's wallet (`out` beyond the
    wallet's balance is refused)."""
    wallet, _ = player_accounts_open(player=player)
    clearing = partner_account_open(partner=partner, currency=player.currency)
    sign = 1 if into_wallet else -1
    return ledger_post(
        idempotency_key=idempotency_key,
        kind=EntryKind.TRANSFER_IN if into_wallet else EntryKind.TRANSFER_OUT,
        lines=[Line(clearing, -sign * amount), Line(wallet, sign * amount)],
        actor=actor,
        reason=reason,
        reference_type="transfer",
        reference_id=reference_id,
    )


def partner_seamless_account_open(*, partner: Partner, player: Player) -> Account:
    """The shard of the partner's seamless account that this player's money moves through: read
    with one plain statement (every seamless stake and settlement reads it twice), opened once."""
    shard = player.pk % SEAMLESS_SHARDS
    found = sql.partner_account(
        kind=str(AccountKind.PARTNER_SEAMLESS), currency=player.currency, shard=shard, partner_id=partner.pk
    )
    if found is not None:
        return found
    account, _ = Account.objects.get_or_create(
        kind=AccountKind.PARTNER_SEAMLESS, currency=player.currency, partner=partner, shard=player.pk % SEAMLESS_SHARDS
    )
    return account


def seamless_accounts_lock(*, partner: Partner, player: Player) -> None:
    """Inside a transaction, before the first entry of a seamless stake: lock every account its
    entries touch (the partner's seamless shard, the player's wallet and money in play) at once,
    in primary-key order. Its entries lock them in two steps otherwise (funding, then the stake),
    and a placement and a settlement of the same player could each wait on the other."""
    wallet, in_play = player_accounts_open(player=player)
    ids = [partner_seamless_account_open(partner=partner, player=player).id, wallet.id, in_play.id]
    sql.accounts_lock(account_ids=ids)


def ledger_accounts_lock(*, accounts: list[Account]) -> None:
    """Inside a transaction, before checks that must see these accounts still (a deposit against
    its limit): lock them as a posting will, all at once and in primary-key order, so that the
    posting that follows takes no lock out of that order (docs/ARCHITECTURE.md "Lock order")."""
    sql.accounts_lock(account_ids=[account.id for account in accounts])


def player_accounts_lock(*, account_ids: list[int], wait: bool) -> dict[int, int]:
    """Inside a transaction: lock these accounts as every posting does (primary-key order) and
    answer their balances, {id: balance}, for a caller that decides what to post from them (the
    house rule: war when the wallet can pay the raise). Without `wait`, only the accounts no other
    transaction holds right now are locked and answered."""
    return sql.accounts_lock_reading_balances(account_ids=account_ids, skip_locked=not wait)


def partner_seamless_post(
    *,
    partner: Partner,
    player: Player,
    amount: int,
    into_wallet: bool,
    idempotency_key: str,
    actor: Actor,
    reason: str,
    reference_type: str,
    reference_id: str,
) -> JournalEntry:
    """A seamless partner's wallet paid a stake into the player's wallet here (`into_wallet`: the
    partner acknowledged a debit), or the player's wallet here pays a payout back to it (a credit).
    The player's wallet at us only ever holds money on its way between the two, within one
    transaction."""
    wallet, _ = player_accounts_open(player=player)
    seamless = partner_seamless_account_open(partner=partner, player=player)
    sign = 1 if into_wallet else -1
    return ledger_post(
        idempotency_key=idempotency_key,
        kind=EntryKind.SEAMLESS_DEBIT if into_wallet else EntryKind.SEAMLESS_CREDIT,
        lines=[Line(seamless, -sign * amount), Line(wallet, sign * amount)],
        actor=actor,
        reason=reason,
        reference_type=reference_type,
        reference_id=reference_id,
    )


# --- Maker-checker adjustments -------------------------------------------------------------------


def adjustment_propose(*, player: Player, amount: int, reason: str, proposed_by: User) -> Adjustment:
    if type(amount) is not int or amount == 0 or abs(amount) > MAX_MINOR_UNITS:
        raise InvalidAmount(gettext("an adjustment is a non-zero integer of minor units"))
    if not reason.strip():
        raise InvalidInput(gettext("an adjustment needs a reason"))
    if getattr(player, "is_seamless", False):  # its money is at its partner: nothing of it is ours to adjust
        raise InvalidInput(gettext("a seamless partner's player has no money here to adjust"))
    return Adjustment.objects.create(
        player=player, amount=amount, currency=player.currency, reason=reason.strip(), proposed_by=proposed_by
    )


def adjustment_approve(*, adjustment: Adjustment, approved_by: User) -> Adjustment:
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


def adjustment_reject(*, adjustment: Adjustment, rejected_by: User) -> Adjustment:
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


def entry_content_hash(
    entry: JournalEntry | sql.EntryRow, postings: Iterable[Posting | sql.PostingRow], previous_hash: str
) -> str:
    """SHA-256 over the previous link and everything the entry says; any change breaks the chain.
    The entry and its postings are models or the same fields as rows (ledger/sql/)."""
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


def ledger_seal(*, batch: int = 5000, everywhere: bool = False) -> int:
    """Append the entries not sealed yet to the hash chain; returns how many were sealed.

    One sealer at a time, by a transaction-level advisory lock (a row lock on the old head would
    let a second sealer, once released, build on a stale head and fork the chain). The entries come
    as plain rows (ledger/sql/): two entries of every round pass through here, and model
    instances cost more than the hashing. `everywhere` looks at every entry, not only the recent
    ones (the verification does).
    """
    with transaction.atomic():
        sql.seal_lock()
        previous = sql.seal_head() or GENESIS_HASH
        entries = sql.unsealed_entries(limit=batch, everywhere=everywhere)
        postings = sql.postings_of_entries(entry_ids=[entry.id for entry in entries]) if entries else {}
        previous_hashes, hashes = [], []
        for entry in entries:
            previous_hashes.append(previous)
            previous = entry_content_hash(entry, postings.get(entry.id, []), previous)
            hashes.append(previous)
        if entries:
            sql.seals_insert(entry_ids=[entry.id for entry in entries], previous_hashes=previous_hashes, hashes=hashes)
    return len(entries)
