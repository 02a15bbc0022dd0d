"""Writes of player protection, and the checks that run inside the transactions that move money."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from core import clock
from core.actors import Actor
from core.audit import audit_record
from core.errors import InvalidInput, LimitExceeded, SelfExcluded, StateConflict
from core.times import moment_text
from ledger.models import Account
from ledger.money import format_money
from ledger.services import ledger_accounts_lock, player_accounts_open
from protection.models import (
    PERIOD_DAYS,
    REALITY_CHECK_MINUTES,
    Exclusion,
    ExclusionKind,
    LimitKind,
    LimitPeriod,
    PlayerLimit,
    RealityCheck,
)
from protection.selectors import MEASURES, exclusion_active, limit_in_force, stake_guards
from protection.signals import exclusion_started

if TYPE_CHECKING:  # accounts is above protection (pyproject's layers): for the annotations only
    from accounts.models import Player, User

COOLING_OFF = timedelta(hours=24)
TIMEOUT_DAYS = (1, 42)  # one day to six weeks
SELF_EXCLUSION_MONTHS = {6: 183, 12: 365, 60: 1826}


def _one_at_a_time(*, player: Player, with_accounts: tuple[Account, ...] = ()) -> None:
    """Inside a transaction: hold the player's wallet row until it ends, so that checks and
    changes for one player (a limit being set, a deposit checked against its limit) run one after
    the other. The wallet is the row every movement of the player's money locks anyway, and it is
    locked as a posting locks it (docs/ARCHITECTURE.md "Lock order"): with the other accounts the
    movement will post to (`with_accounts`), all at once, in primary-key order."""
    wallet, _ = player_accounts_open(player=player)
    ledger_accounts_lock(accounts=[wallet, *with_accounts])


def limit_set(*, player: Player, kind: LimitKind, period: LimitPeriod, amount: int | None, actor: Actor) -> PlayerLimit:
    """Set a limit (`amount` positive minor units; None removes it). A lower limit (or a first
    one) applies at once; a higher one or a removal only after 24 hours of cooling-off."""
    kind, period = LimitKind(kind), LimitPeriod(period)
    now = clock.now()
    with transaction.atomic():
        _one_at_a_time(player=player)
        current = limit_in_force(player=player, kind=kind, period=period, at=now)
        current_amount = current.amount if current else None
        tighter = amount is not None and (current_amount is None or amount < current_amount)
        limit = PlayerLimit.objects.create(
            player=player,
            kind=kind,
            period=period,
            amount=amount,
            requested_at=now,
            effective_from=now if tighter or amount == current_amount else now + COOLING_OFF,
            requested_by_type=actor.type,
            requested_by_id=actor.id,
        )
        audit_record(
            actor_type=actor.type,
            actor_id=actor.id,
            action="limit.set",
            obj_type="player",
            obj_id=player.pk,
            kind=kind.value,
            period=period.value,
            amount=amount,
            effective_from=limit.effective_from.isoformat(),
        )
    return limit


def exclusion_start(
    *, player: Player, kind: ExclusionKind, days: int | None = None, months: int | None = None, actor: Actor
) -> Exclusion:
    """A time-out of `days` (1 day to 6 weeks) or a self-exclusion of `months` (6 months, 1 year,
    5 years). It starts at once, signs the player out, and cannot be shortened or lifted by the
    player."""
    kind = ExclusionKind(kind)
    if kind is ExclusionKind.TIMEOUT:
        if type(days) is not int or not TIMEOUT_DAYS[0] <= days <= TIMEOUT_DAYS[1]:
            raise InvalidInput(gettext("a time-out lasts 1 to 42 days ('days')"))
        length = timedelta(days=days)
    else:
        if months not in SELF_EXCLUSION_MONTHS or type(months) is not int:
            raise InvalidInput(gettext("a self-exclusion lasts 6, 12 or 60 months ('months')"))
        length = timedelta(days=SELF_EXCLUSION_MONTHS[months])
    now = clock.now()
    with transaction.atomic():
        active = exclusion_active(player=player, at=now)
        if active is not None and active.ends_at >= now + length:
            raise StateConflict(
                gettext("the player is already excluded until %(until)s") % {"until": moment_text(active.ends_at)}
            )
        exclusion = Exclusion.objects.create(
            player=player,
            kind=kind,
            starts_at=now,
            ends_at=now + length,
            requested_by_type=actor.type,
            requested_by_id=actor.id,
        )
        _sign_out(user=player.user)
        exclusion_started.send(sender=Exclusion, player=player, exclusion=exclusion, actor=actor)
        audit_record(
            actor_type=actor.type,
            actor_id=actor.id,
            action="exclusion.started",
            obj_type="player",
            obj_id=player.pk,
            kind=kind.value,
            ends_at=exclusion.ends_at.isoformat(),
        )
    return exclusion


def _sign_out(*, user: User) -> None:
    """End the player's web sessions (its API tokens end on `exclusion_started`, in accounts)."""
    for session in Session.objects.filter(expire_date__gt=clock.now()).iterator():
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk):
            session.delete()


def reality_check_set(*, player: Player, interval_minutes: int, actor: Actor) -> RealityCheck:
    low, high = REALITY_CHECK_MINUTES
    if type(interval_minutes) is not int or not (interval_minutes == 0 or low <= interval_minutes <= high):
        raise InvalidInput(
            gettext("a reality check comes every %(low)s to %(high)s minutes (0: never)") % {"low": low, "high": high}
        )
    check, _ = RealityCheck.objects.get_or_create(player=player)
    check.interval_minutes = interval_minutes
    check.save(update_fields=["interval_minutes"])
    audit_record(
        actor_type=actor.type,
        actor_id=actor.id,
        action="reality_check.set",
        obj_type="player",
        obj_id=player.pk,
        interval_minutes=interval_minutes,
    )
    return check


def session_start(*, player: Player) -> None:
    """A sign-in starts a new session for the reality check's figures."""
    RealityCheck.objects.update_or_create(player=player, defaults={"session_started_at": clock.now()})


STAKE_GUARD_KINDS = (LimitKind.WAGER, LimitKind.LOSS)


def protection_check_stake(
    *, player: Player, amount: int, guards: tuple[bool, dict[tuple[str, str], int | None]] | None = None
) -> None:
    """Inside the transaction that stakes `amount`, after the player's rounds are serialised:
    refuse an excluded player, and a stake that would break a wager or loss limit. `guards` are
    the exclusion and the limits of STAKE_GUARD_KINDS in force now, if the caller's statement read
    them already (`protection_stake_guards`; `selectors.limits_by_kind_and_period`)."""
    _check_guards(player=player, kinds=STAKE_GUARD_KINDS, amount=amount, guards=guards)


def protection_check_deposit(*, player: Player, amount: int, source: Account) -> None:
    """Inside the transaction that brings `amount` into the wallet from the `source` account (the
    partner's, the outside world's), before it is posted: refuse an excluded player, and a deposit
    that would break a deposit limit. Concurrent deposits are checked one at a time: the wallet
    and `source` are locked first, together, as the posting then locks them."""
    _one_at_a_time(player=player, with_accounts=(source,))
    _check_guards(player=player, kinds=(LimitKind.DEPOSIT,), amount=amount)


# What a refusal tells the player, one whole sentence per kind of limit (people read `detail`).
LIMIT_REFUSALS = {
    LimitKind.DEPOSIT: gettext_lazy(
        "This would go over your deposit limit of %(limit)s per %(period)s: %(left)s left."
    ),
    LimitKind.LOSS: gettext_lazy("This bet would go over your loss limit of %(limit)s per %(period)s: %(left)s left."),
    LimitKind.WAGER: gettext_lazy(
        "This bet would go over your wager limit of %(limit)s per %(period)s: %(left)s left."
    ),
}
PERIOD_NAMES = {
    LimitPeriod.DAY: gettext_lazy("24 hours"),
    LimitPeriod.WEEK: gettext_lazy("7 days"),
    LimitPeriod.MONTH: gettext_lazy("30 days"),
}


def _check_guards(
    *,
    player: Player,
    kinds: tuple[LimitKind, ...],
    amount: int,
    guards: tuple[bool, dict[tuple[str, str], int | None]] | None = None,
) -> None:
    now = clock.now()
    excluded, in_force = guards if guards is not None else stake_guards(player=player, kinds=kinds, at=now)
    if excluded:
        raise SelfExcluded(gettext("You are taking a break from play (a time-out or self-exclusion) until it ends."))
    for kind in kinds:
        for period in LimitPeriod:
            limit = in_force.get((kind, period))
            if limit is None:
                continue
            used = MEASURES[kind](player=player, since=now - timedelta(days=PERIOD_DAYS[period]))
            if used + amount > limit:
                raise LimitExceeded(
                    str(LIMIT_REFUSALS[kind])
                    % {
                        "period": PERIOD_NAMES[period],
                        "limit": format_money(limit, player.currency),
                        "left": format_money(max(0, limit - used), player.currency),
                    }
                )
