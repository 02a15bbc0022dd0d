"""A seamless partner's player's stakes: debited from the partner's wallet, then placed
(API.md "Seamless wallet"). casino/services/wallets.py makes and records the calls.

A stake (or a war raise) goes in three steps, and no database transaction, row lock or
idempotency lock is held while the partner's wallet is being called:

1. checks and a claim (short transactions, committed): the table, the bet limits and the player's
   protection, exactly as placing would check them; then the pending debit, with the round id it
   is for. A stake's debit records the request (caller and Idempotency-Key), so a retry of that
   request after a crash uses the same round id, hence the same transaction id, and the partner
   answers it with its first result: the stake is never debited twice. A retry that finds its
   debit still pending (the first attempt died, or the database failed after the debit) sends it
   again at once and carries on from the answer, rather than waiting for the first one's lease.
2. the debit, with no transaction open. A `422 insufficient_funds` refuses the request; any other
   answer, or none within WALLET_TIMEOUT_S, is `503 wallet_unavailable` and the debit is rolled back.
3. after a `200`, the round placed as any round (casino/services/rounds.py `round_place`): the
   statement that writes it acknowledges the debit, pays its amount from the partner's seamless
   account into the player's wallet here and stakes it from that wallet into money in play; the
   stored response is written with it (core/idempotency.py). It is checked on what step 1 read,
   unless another round of the player came in between (the nonce tells): then on what it reads
   again. Refused at that point (a limit reached meanwhile by a concurrent round), nothing of it is
   written and the debit is rolled back. A change made by no round while the wallet answers (the
   table closed, an exclusion, a limit set: at most WALLET_TIMEOUT_S) applies from the next
   stake: this one was checked and debited before it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import Player
from casino import sql
from casino.models import Round, RoundStatus, WalletCall, WalletCallKind, WalletCallPurpose
from casino.models import WalletCallStatus as Status
from casino.services.rounds import (
    round_decide,
    round_place,
    round_stake_check,
    round_stake_checks,
    stake_guard_kinds,
    table_id_checked,
)
from casino.services.wallets import (
    answered_balance,
    refused_for_funds,
    wallet_call_record,
    wallet_debit_acknowledgement,
    wallet_debit_create,
    wallet_debit_give_up,
    wallet_debit_lease,
    wallet_debit_refusal,
    wallet_debit_send,
    wallet_rollback_create,
)
from core import clock
from core.actors import Actor
from core.errors import (
    IdempotencyConflict,
    IdempotencyInFlight,
    NotFound,
    RoundNotAwaitingDecision,
    ServiceError,
)
from core.idempotency import KEEP_FOR, RequestKey
from core.outbound import OutboundAnswer
from ledger.services import (
    SEAMLESS_SHARDS,
    partner_seamless_account_open,
    partner_seamless_post,
    seamless_accounts_lock,
)


@dataclass(frozen=True)
class Debit:
    """A debit the partner's wallet answered `200` to, not yet recorded as acknowledged; a stake's
    with the partner's seamless account (its shard) the debited amount is paid from."""

    call: WalletCall
    answer: OutboundAnswer
    balance: int  # the player's at the partner, as the answer said
    account_id: int | None = None
    # What step 1 read for the round's checks (the seed pair unlocked), when its first statement
    # claimed the request's key: step 3 then places the round on it, in one statement.
    read: sql.Opened | None = None


_refused = wallet_debit_refusal  # the request's refusal for a debit that ended refused or failed


def _debit(call: WalletCall, *, account_id: int | None = None, read: sql.Opened | None = None) -> Debit:
    """Step 2: the call, with no transaction open; a refusal or a failure recorded and raised."""
    answer = wallet_debit_send(call=call)
    balance = answered_balance(answer, sent=call.request_body)
    if balance is not None:
        return Debit(call, answer, balance, account_id, read)
    with transaction.atomic():
        held = WalletCall.objects.select_for_update(of=("self",)).select_related("player").get(pk=call.pk)
        if held.status == Status.PENDING:  # (not given up by the sweeper meanwhile)
            if refused_for_funds(answer):
                wallet_call_record(held, answer, status=Status.REFUSED)
            else:
                wallet_debit_give_up(call=held, answer=answer)
    raise _refused(Status.REFUSED if refused_for_funds(answer) else Status.FAILED)


def _stake_claim(*, player: Player, amount: int, scope: str, key: str, request_hash: str) -> WalletCall:
    """Step 1's claim: the pending debit of this request, new or (its first attempt died) taken over."""
    with transaction.atomic():
        # No join: a key used before is rare, and its call's partner and player are read if it is.
        found = WalletCall.objects.select_for_update(of=("self",)).filter(request_scope=scope, request_key=key)
        existing = next(iter(found[:1]), None)
        if existing is not None and existing.created_at < timezone.now() - KEEP_FOR:
            existing.request_key = ""  # the key's stored response is gone: the key is free again
            existing.save(update_fields=["request_key"])
            existing = None
        if existing is not None:
            if existing.request_hash != request_hash:
                raise IdempotencyConflict()
            if existing.status == Status.PENDING:
                # Its request died (a killed process, a database failure after the debit) or still
                # runs: either way the same debit is sent again now, and the partner answers it with
                # its first result. What that says is this request's to act on (place the round, or
                # roll the debit back); a first request still running finds the debit acknowledged
                # or given up and answers what the key stored (core/idempotency.py).
                wallet_debit_lease(existing)
                return existing
            if existing.status == Status.ACKNOWLEDGED:
                raise IdempotencyInFlight()  # its request stored its answer with it: the caller looks again
            raise _refused(existing.status)
        return _stake_debit_create(player=player, amount=amount, scope=scope, key=key, request_hash=request_hash)


def _stake_debit_create(*, player: Player, amount: int, scope: str, key: str, request_hash: str) -> WalletCall:
    call = wallet_debit_create(
        player=player,
        round_id=uuid.uuid4(),
        purpose=WalletCallPurpose.STAKE,
        amount=amount,
        request_scope=scope,
        request_key=key,
        request_hash=request_hash,
    )
    if call is None:
        raise IdempotencyInFlight()  # a concurrent request with this key claimed it
    return call


def seamless_stake_debit(
    *, player: Player, table_id: int, main_bet: int, tie_bet: int, request_key: RequestKey
) -> Debit:
    """Steps 1 and 2 of placing a seamless round (the module's docstring). Step 1 is two statements,
    each committed on its own (no transaction around them): the request's idempotency claim (its
    nonce recorded) with what the checks read and whether this request made a debit already
    (`sql.seamless_stake_open`); then, the checks passed, the pending debit and its audit event
    (`wallet_debit_create`). A request whose debit exists (a retry), and a player's first round
    (no seed pair yet), take the longer way: `round_stake_check`, then `_stake_claim`."""
    table_id_checked(table_id)
    scope, key, request_hash, amount = request_key.scope, request_key.key, request_key.request_hash, main_bet + tie_bet
    shard = player.pk % SEAMLESS_SHARDS
    opening = sql.seamless_stake_open(
        claim=request_key.claim_params(),
        player_id=player.pk,
        currency=player.currency,
        table_id=table_id,
        guard_kinds=stake_guard_kinds(),
        at=clock.now(),
        request_scope=scope,
        request_key=key,
        partner_id=player.partner_id,
        seamless_shard=shard,
    )
    request_key.claimed(opening.claim)  # leaves with the stored answer, or the key held by another request
    account_id = opening.seamless_account_id
    if account_id is None:  # the shard's first round: opened now
        account_id = partner_seamless_account_open(partner=player.partner, player=player).id
    if opening.opened is None or opening.debit_made:
        round_stake_check(player=player, table_id=table_id, main_bet=main_bet, tie_bet=tie_bet)
        call = _stake_claim(player=player, amount=amount, scope=scope, key=key, request_hash=request_hash)
        return _debit(call, account_id=account_id)
    round_stake_checks(player=player, opened=opening.opened, table_id=table_id, main_bet=main_bet, tie_bet=tie_bet)
    call = _stake_debit_create(player=player, amount=amount, scope=scope, key=key, request_hash=request_hash)
    return _debit(call, account_id=account_id, read=opening.opened)


def _acknowledge(debit: Debit) -> WalletCall:
    """In step 3's transaction: the debit acknowledged, unless the sweeper gave it up meanwhile.
    Its row is locked and only what may have changed since the claim is read again (its partner
    and player came with the claim)."""
    call = debit.call
    held = WalletCall.objects.select_for_update(of=("self",)).filter(pk=call.pk)
    call.status, call.attempts = held.values_list("status", "attempts").get()
    if call.status != Status.PENDING:
        raise _refused(Status.REFUSED if call.status == Status.REFUSED else Status.FAILED)
    wallet_call_record(call, debit.answer, status=Status.ACKNOWLEDGED)
    return call


def _fund(*, call: WalletCall, player: Player, actor: Actor) -> None:
    """A raise's debited amount from the partner's seamless account into the player's wallet here,
    the accounts the raise then moves locked with it (`seamless_accounts_lock`)."""
    seamless_accounts_lock(partner=call.partner, player=player)
    partner_seamless_post(
        partner=call.partner,
        player=player,
        amount=call.amount,
        into_wallet=True,
        idempotency_key=_funding_key(call),
        actor=actor,
        reason=_funding_reason(call),
        reference_type="round",
        reference_id=str(call.round_id),
    )


def _funding_key(call: WalletCall) -> str:
    # round:<id>:stake-funding, round:<id>:raise-funding (round:<id>:raise-2-funding...)
    return f"round:{call.round_id}:{call.transaction_id.split('-', 1)[1]}-funding"


def _funding_reason(call: WalletCall) -> str:
    return f"{call.purpose} debited from the partner's wallet ({call.transaction_id})"


def seamless_round_place(
    *,
    debit: Debit,
    player: Player,
    table_id: int,
    main_bet: int,
    tie_bet: int,
    actor: Actor,
    request_key: RequestKey | None = None,
) -> Round:
    """Step 3 of placing a seamless round: placed as any round, on what step 1 read when step 1's
    first statement claimed the key (`Debit.read`): then in one statement, committing alone, which
    counts the nonce only if no other round of the player came since step 1 read it (else the round
    is placed again as any round, in a transaction, checked on what is read then), acknowledges the
    debit (its row locked after the player's seed pair, the lock order of every round), pays it
    into the wallet here with the stake (casino/sql/ `Funding`: one posting, its accounts locked
    together) and stores the answer if no request with the key stored one meanwhile."""
    call = debit.call
    account_id = debit.account_id
    if account_id is None:
        account_id = partner_seamless_account_open(partner=player.partner, player=player).id
    funding = sql.Funding(
        key=_funding_key(call),
        reason=_funding_reason(call),
        account_id=account_id,
        debit_id=call.pk,
        debit_answer=wallet_debit_acknowledgement(debit.answer, balance=debit.balance),
    )
    return round_place(
        player=player,
        table_id=table_id,
        main_bet=main_bet,
        tie_bet=tie_bet,
        actor=actor,
        round_id=call.round_id,
        request_key=request_key,
        funding=funding,
        read_before=debit.read,
    )


def seamless_debit_unused(*, debit: Debit, error: ServiceError) -> None:
    """Step 3 was refused, its transaction undone: the debit happened all the same (the partner
    answered 200), so it is recorded and rolled back."""
    call = WalletCall.objects.select_for_update(of=("self",)).select_related("player").get(pk=debit.call.pk)
    if call.status == Status.PENDING:
        wallet_call_record(call, debit.answer, status=Status.ACKNOWLEDGED)
        wallet_rollback_create(debit=call)


# --- The war raise ---------------------------------------------------------------------------------


def _raise_claim(*, player: Player, round_id: str) -> WalletCall:
    """The raise's pending debit, made under the round's row lock (one raise debit at a time)."""
    try:
        round_pk = uuid.UUID(str(round_id))
    except ValueError:
        raise NotFound(gettext("no such round")) from None
    with transaction.atomic():
        round_ = Round.objects.select_for_update().filter(pk=round_pk, player=player).first()
        if round_ is None:
            raise NotFound(gettext("no such round"))
        if round_.status != RoundStatus.AWAITING_DECISION:
            raise RoundNotAwaitingDecision(gettext("the round is %(status)s") % {"status": round_.status})
        earlier = list(
            WalletCall.objects.select_for_update(of=("self",))
            .select_related("player", "partner")
            .filter(round_id=round_pk, kind=WalletCallKind.DEBIT, purpose=WalletCallPurpose.RAISE)
            .order_by("created_at")
        )
        pending = [call for call in earlier if call.status == Status.PENDING]
        if pending:  # a request for it died or still runs: the same debit again, answered with its first result
            call = pending[-1]
            wallet_debit_lease(call)
            return call
        call = wallet_debit_create(
            player=player,
            round_id=round_pk,
            purpose=WalletCallPurpose.RAISE,
            amount=round_.main_bet,
            attempt=len(earlier) + 1,
        )
        call.partner = player.partner
    return call


def seamless_raise_debit(*, player: Player, round_id: str) -> Debit:
    """Steps 1 and 2 of going to war on a seamless round."""
    return _debit(_raise_claim(player=player, round_id=round_id))


def seamless_round_go_to_war(*, debit: Debit, player: Player, round_id: str, actor: Actor) -> Round:
    """Step 3 of going to war: the raise debited is paid into the wallet here and staked."""

    def fund(round_: Round, wallet_id: int) -> None:
        call = _acknowledge(debit)
        if call.amount != round_.main_bet:
            raise RuntimeError(f"raise debit {call.transaction_id} is not round {round_.id}'s raise")
        _fund(call=call, player=player, actor=actor)

    return round_decide(player=player, round_id=round_id, action="war", actor=actor, before_staking=fund)
