"""Reads of player protection: the limits in force, the activity they are measured against."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from core import clock
from ledger.models import AccountKind, EntryKind, Posting
from ledger.selectors import SIGNED
from protection import sql
from protection.models import PERIOD_DAYS, Exclusion, LimitKind, LimitPeriod, PlayerLimit, RealityCheck
from protection.shapes import (
    ExclusionShape,
    LimitPendingShape,
    LimitShape,
    ProtectionShape,
    RealityCheckShape,
    SessionFiguresShape,
)

if TYPE_CHECKING:  # accounts is above protection (pyproject's layers): for the annotations only
    from accounts.models import Player


def limit_in_force(*, player: Player, kind: str, period: str, at: datetime | None = None) -> PlayerLimit | None:
    """The limit row in force at `at`: the most recently requested of those already effective, by
    the database's one rule of it (`protection_limits_in_force`, which `stake_guards` reads too)."""
    return sql.limit_in_force(player_id=player.pk, kind=str(kind), period=str(period), at=at or clock.now())


def stake_guards(
    *, player: Player, kinds: tuple[LimitKind, ...], at: datetime
) -> tuple[bool, dict[tuple[str, str], int | None]]:
    """Whether the player is excluded at `at`, and the amounts of the limits of these kinds in
    force then, by (kind, period): the rules of `exclusion_active` and `limit_in_force` for all
    of them in one statement (`protection_stake_guards`, built on `protection_limits_in_force`),
    because every round and deposit asks inside its transaction."""
    excluded, limits = sql.stake_guards(player_id=player.pk, kinds=[str(kind) for kind in kinds], at=at)
    return excluded, limits_by_kind_and_period(limits)


def limits_by_kind_and_period(limits: list) -> dict[tuple[str, str], int | None]:
    """`protection_stake_guards`' limits, [[kind, period, amount], ...], by (kind, period)."""
    return {(kind, period): amount for kind, period, amount in limits}


def limit_pending(*, player: Player, kind: str, period: str, at: datetime | None = None) -> PlayerLimit | None:
    """A requested change not in force yet (an increase or removal cooling off), if it will win."""
    at = at or clock.now()
    current = limit_in_force(player=player, kind=kind, period=period, at=at)
    pending = (
        PlayerLimit.objects.filter(player=player, kind=kind, period=period, effective_from__gt=at)
        .order_by("-requested_at", "-id")
        .first()
    )
    if pending is None or (current is not None and current.requested_at > pending.requested_at):
        return None
    return pending


def exclusion_active(*, player: Player, at: datetime | None = None) -> Exclusion | None:
    at = at or clock.now()
    return Exclusion.objects.filter(player=player, starts_at__lte=at, ends_at__gt=at).order_by("-ends_at").first()


def _wallet_postings(*, player: Player, since: datetime, kinds: list[EntryKind]):
    """The postings of the player's wallet made since `since` by entries of these kinds."""
    return Posting.objects.filter(
        account__player=player,
        account__kind=AccountKind.PLAYER_WALLET,
        entry__kind__in=kinds,
        entry__created_at__gte=since,
    )


def _signed_total(postings: QuerySet[Posting]) -> int:
    return postings.aggregate(total=Coalesce(Sum(SIGNED), 0))["total"]


def wagered_since(*, player: Player, since: datetime) -> int:
    """Stakes that left the wallet in the window: main and tie bets, and raises to go to war."""
    return -_signed_total(_wallet_postings(player=player, since=since, kinds=[EntryKind.STAKE]))


def net_loss_since(*, player: Player, since: datetime) -> int:
    """What the player has lost (>= 0) in the window: stakes out of the wallet less payouts into
    it. A stake not paid back yet (its round waits for a decision, or for settlement) counts as
    lost: the cautious reading."""
    kinds = [EntryKind.STAKE, EntryKind.SETTLEMENT]
    return max(0, -_signed_total(_wallet_postings(player=player, since=since, kinds=kinds)))


def deposited_since(*, player: Player, since: datetime) -> int:
    """Money brought into the wallet in the window: deposits and partner transfers in."""
    kinds = [EntryKind.DEPOSIT, EntryKind.TRANSFER_IN]
    return _signed_total(_wallet_postings(player=player, since=since, kinds=kinds))


MEASURES = {LimitKind.WAGER: wagered_since, LimitKind.LOSS: net_loss_since, LimitKind.DEPOSIT: deposited_since}


def protection_summary(*, player: Player) -> ProtectionShape:
    now = clock.now()
    limits = []
    for kind in LimitKind:
        for period in LimitPeriod:
            current = limit_in_force(player=player, kind=kind, period=period, at=now)
            pending = limit_pending(player=player, kind=kind, period=period, at=now)
            if current is None and pending is None:
                continue
            used = MEASURES[kind](player=player, since=now - timedelta(days=PERIOD_DAYS[period]))
            limits.append(
                LimitShape(
                    kind=kind,
                    period=period,
                    amount=current.amount if current else None,
                    used=used,
                    pending=None
                    if pending is None
                    else LimitPendingShape(amount=pending.amount, effective_from=pending.effective_from),
                )
            )
    exclusion = exclusion_active(player=player, at=now)
    reality = RealityCheck.objects.filter(player=player).first()
    return ProtectionShape(
        limits=limits,
        exclusion=None if exclusion is None else ExclusionShape(kind=exclusion.kind, ends_at=exclusion.ends_at),
        reality_check=RealityCheckShape(interval_minutes=reality.interval_minutes if reality else 0),
        session=session_figures(player=player, reality=reality, now=now),
    )


def session_figures(
    *, player: Player, reality: RealityCheck | None = None, now: datetime | None = None
) -> SessionFiguresShape:
    """The current session (since the last sign-in), from the wallet's postings: how long, how
    many rounds were staked, how much was staked and the net (a stake not paid back yet counts
    as lost, as for the loss limit)."""
    now = now or clock.now()
    reality = reality if reality is not None else RealityCheck.objects.filter(player=player).first()
    started = (reality.session_started_at if reality else None) or now
    stake = Q(entry__kind=EntryKind.STAKE)
    totals = _wallet_postings(player=player, since=started, kinds=[EntryKind.STAKE, EntryKind.SETTLEMENT]).aggregate(
        rounds=Count("entry__reference_id", filter=stake, distinct=True),
        staked=Coalesce(Sum("amount", filter=stake), 0),
        net=Coalesce(Sum(SIGNED), 0),
    )
    interval = reality.interval_minutes if reality else 0
    elapsed = max(0, int((now - started).total_seconds()))
    next_check = None
    if interval:
        done = elapsed // (interval * 60)
        next_check = started + timedelta(minutes=interval * (done + 1))
    return SessionFiguresShape(
        started_at=started,
        elapsed_s=elapsed,
        rounds=totals["rounds"],
        staked=totals["staked"],
        net=totals["net"],
        next_reality_check_at=next_check,
    )
