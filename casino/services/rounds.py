"""Placing a round and deciding it: each one database transaction.

A round's cards come from the player's provably fair stream for its nonce (a fresh shoe), or
from the player's persistent shoe at the table; a decision replays the same cards, so nothing
but the round row has to be kept between the deal and the decision.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from casino.engine import (
    Action,
    BetOffTableError,
    CasinoWarRules,
    FreshShoe,
    HmacStream,
    Phase,
    RoundState,
    ShuffleMode,
    StackedShoe,
    decide,
    place_bets,
    shoe,
    shuffle,
)
from casino.models import Round, RoundStatus, SeedPair, ShoeState, Table
from casino.selectors import table_get
from casino.services.fairness import seed_pair_take_nonce
from casino.services.settlement import settlement_enqueue
from core.actors import Actor
from core.audit import audit_record
from core.errors import (
    BetOutOfLimits,
    InsufficientFunds,
    NotFound,
    RoundNotAwaitingDecision,
    TableClosed,
    UnknownTable,
    WalletCurrencyMismatch,
)
from ledger.money import format_money
from ledger.services import stake_into_play
from protection.services import protection_check_stake

logger = logging.getLogger(__name__)


def _rules(round_: Round) -> CasinoWarRules:
    return CasinoWarRules(**round_.rules)


def _card_source(*, rules: CasinoWarRules, pair: SeedPair, nonce: int, shoe_nonce: int, position: int):
    """A round's cards from its first one: a fresh shoe from the round's own nonce, or the
    persistent shoe shuffled from `shoe_nonce`, dealt from `position`."""
    if rules.shuffle is ShuffleMode.FRESH:
        return FreshShoe(rules.decks, HmacStream(pair.server_seed, pair.client_seed, nonce))
    shuffled = shuffle(shoe(rules.decks), HmacStream(pair.server_seed, pair.client_seed, shoe_nonce))
    return StackedShoe(shuffled[position:])


def _cards_of(round_: Round):
    """The round's card source, replayable at any time."""
    return _card_source(
        rules=_rules(round_), pair=round_.seed_pair, nonce=round_.nonce, shoe_nonce=round_.shoe_nonce,
        position=round_.shoe_position,
    )  # fmt: skip


def _persistent_position(*, player, table: Table, pair: SeedPair, nonce: int, rules: CasinoWarRules) -> ShoeState:
    """The player's shoe at this table, reshuffled (from this round's nonce) when the cut card is
    out, the seed pair changed, or the shoe could not finish a war."""
    state = ShoeState.objects.select_for_update().filter(player=player, table=table).first()
    size = 52 * rules.decks
    needed = 4 + rules.burn
    if state is None or state.seed_pair_id != pair.pk or state.position >= state.cut or state.position + needed > size:
        cut = size * rules.penetration // 100
        if state is None:
            state = ShoeState(player=player, table=table)
        state.seed_pair = pair
        state.shuffle_nonce = nonce
        state.position = 0
        state.cut = cut
        state.save()
    return state


def bet_limits_text(table: Table) -> str:
    """Why a bet is off the table, in the caller's language and money format."""

    def money(amount: int) -> str:
        return format_money(amount, table.currency)

    text = gettext("a main bet at %(table)s is %(low)s to %(high)s in steps of %(step)s") % {
        "table": table.name, "low": money(table.min_bet), "high": money(table.max_bet), "step": money(table.bet_step),
    }  # fmt: skip
    if table.max_tie_bet:
        text += "; " + gettext("a tie bet is 0 or up to %(high)s in the same steps") % {
            "high": money(table.max_tie_bet)
        }
    else:
        text += "; " + gettext("this table takes no tie bet")
    return text


def round_place(*, player, table_id: int, main_bet: int, tie_bet: int = 0, actor: Actor) -> Round:
    """Place a round of `main_bet` (and `tie_bet`) minor units at the table: deal it, and stake
    the bets from the wallet. Refused by the table (closed, another currency, the bets off its
    limits), the player's protection (limits, exclusion) or the wallet (insufficient funds)."""
    main, tie = main_bet, tie_bet
    with transaction.atomic():  # nested, a savepoint: a refusal leaves the caller's transaction usable
        table = table_get(table_pk=table_id)
        if table is None:
            raise UnknownTable(gettext("there is no table %(table)r") % {"table": table_id})
        if not table.is_open:
            raise TableClosed(gettext("%(table)s is closed") % {"table": table.name})
        if table.currency != player.currency:
            raise WalletCurrencyMismatch(
                gettext("%(table)s plays in %(currency)s, the wallet holds %(wallet)s")
                % {"table": table.name, "currency": table.currency, "wallet": player.currency}
            )
        try:
            table.limits.check(main=main, tie=tie)
        except BetOffTableError:
            raise BetOutOfLimits(bet_limits_text(table)) from None
        rules = table.rules

        pair, nonce = seed_pair_take_nonce(player=player)  # locks the pair: serialises this player's rounds
        # Limits are checked here, under that lock and in the staking transaction: concurrent
        # rounds of one player cannot together overshoot a limit.
        protection_check_stake(player=player, amount=main + tie)

        round_id = uuid.uuid4()
        if rules.shuffle is ShuffleMode.FRESH:
            shoe_nonce, position = nonce, 0
        else:
            shoe_state = _persistent_position(player=player, table=table, pair=pair, nonce=nonce, rules=rules)
            shoe_nonce, position = shoe_state.shuffle_nonce, shoe_state.position
        cards = _card_source(rules=rules, pair=pair, nonce=nonce, shoe_nonce=shoe_nonce, position=position)
        state = place_bets(rules=rules, main=main, tie=tie, cards=cards)
        if rules.shuffle is ShuffleMode.PERSISTENT:
            # A tie reserves the burned and war cards now, so the next round starts after them.
            used = 2 if state.phase is Phase.RESOLVED else 4 + rules.burn
            ShoeState.objects.filter(pk=shoe_state.pk).update(position=F("position") + used)

        now = timezone.now()
        round_ = Round(
            id=round_id,
            player=player,
            table=table,
            currency=table.currency,
            rules=rules.as_json(),
            main_bet=main,
            tie_bet=tie,
            player_card=state.player_card.code,
            dealer_card=state.dealer_card.code,
            seed_pair=pair,
            nonce=nonce,
            shoe_nonce=shoe_nonce,
            shoe_position=position,
            placed_by_type=actor.type,
            placed_by_id=actor.id,
        )
        if state.phase is Phase.RESOLVED:
            _apply_resolution(round_, state, now)
        else:
            round_.status = RoundStatus.AWAITING_DECISION
            round_.decision_deadline = now + timedelta(seconds=table.decision_timeout_s)
            round_.nets = state.nets.as_dict()
        round_.save(force_insert=True)
        audit_record(
            actor_type=actor.type, actor_id=actor.id, action="round.placed", obj_type="round", obj_id=round_id,
            main_bet=main, tie_bet=tie, nonce=nonce, status=round_.status,
        )  # fmt: skip
        # The stake comes last: it locks the wallet, which settlement needs too, until the commit.
        stake_into_play(
            player=player, amount=main + tie, idempotency_key=f"round:{round_id}:stake", actor=actor,
            reason="main and tie bets" if tie else "main bet", reference_type="round", reference_id=str(round_id),
        )  # fmt: skip
        if round_.status == RoundStatus.RESOLVED:
            transaction.on_commit(lambda: settlement_enqueue(round_id))
    return round_


def _apply_resolution(round_: Round, state: RoundState, now) -> None:
    round_.status = RoundStatus.RESOLVED
    round_.outcome = state.outcome.value
    round_.nets = state.nets.as_dict()
    round_.net = state.nets.total
    round_.payout = state.payout
    round_.raise_bet = state.raise_bet
    round_.resolved_at = now
    if state.decision is not None:
        round_.decision = state.decision.value
        round_.burned = " ".join(c.code for c in state.burned)
        if state.player_war_card is not None:
            round_.war_player_card = state.player_war_card.code
            round_.war_dealer_card = state.dealer_war_card.code


def _resolve_decision(round_: Round, action: Action, actor: Actor, *, timed_out: bool) -> Round:
    rules = _rules(round_)
    cards = _cards_of(round_)
    state = place_bets(rules=rules, main=round_.main_bet, tie=round_.tie_bet, cards=cards)
    if state.phase is not Phase.AWAITING_DECISION or state.player_card.code != round_.player_card:
        raise RuntimeError(f"round {round_.id} does not replay to its dealt cards")
    if action is Action.WAR:
        stake_into_play(
            player=round_.player, amount=round_.main_bet, idempotency_key=f"round:{round_.id}:raise",
            actor=actor, reason="raise to go to war", reference_type="round", reference_id=str(round_.id),
        )  # fmt: skip
    state = decide(state, action, cards)
    now = timezone.now()
    _apply_resolution(round_, state, now)
    round_.decided_by_type = actor.type
    round_.decided_by_id = actor.id
    round_.decided_at = now
    round_.decision_timed_out = timed_out
    round_.save()
    audit_record(
        actor_type=actor.type, actor_id=actor.id, action="round.decided", obj_type="round", obj_id=round_.id,
        decision=action.value, timed_out=timed_out, outcome=round_.outcome,
    )  # fmt: skip
    round_id = round_.id
    transaction.on_commit(lambda: settlement_enqueue(round_id))
    return round_


def round_decide(*, player, round_id: str, action: Action, actor: Actor) -> Round:
    """Go to war (staking the raise) or surrender, on a round waiting for a decision."""
    action = Action(action)
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(of=("self",))
            .select_related("seed_pair", "player")
            .filter(pk=_uuid_or_404(round_id), player=player)
            .first()
        )
        if round_ is None:
            raise NotFound(gettext("no such round"))
        if round_.status != RoundStatus.AWAITING_DECISION:
            raise RoundNotAwaitingDecision(gettext("the round is %(status)s") % {"status": round_.status})
        return _resolve_decision(round_, action, actor, timed_out=False)


def _uuid_or_404(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound(gettext("no such round")) from None


def rounds_decide_timed_out(*, limit: int = 500) -> int:
    """Take the table's house rule for every round whose decision is overdue (go to war, or
    surrender when the wallet cannot cover the raise), logged as taken by the system."""
    actor = Actor.system("decision_timeout")
    due = list(
        Round.objects.filter(status=RoundStatus.AWAITING_DECISION, decision_deadline__lte=timezone.now())
        .order_by("decision_deadline")
        .values_list("id", flat=True)[:limit]
    )
    decided = 0
    for round_id in due:
        with transaction.atomic():
            round_ = (
                Round.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("seed_pair", "player")
                .filter(pk=round_id, status=RoundStatus.AWAITING_DECISION)
                .first()
            )
            if round_ is None:
                continue  # decided meanwhile, or being decided right now
            action = Action(round_.rules.get("house_rule", Action.WAR))
            try:
                with transaction.atomic():
                    _resolve_decision(round_, action, actor, timed_out=True)
            except InsufficientFunds:
                _resolve_decision(round_, Action.SURRENDER, actor, timed_out=True)
            decided += 1
    if decided:
        logger.info("took the house rule for %d overdue decisions", decided)
    return decided
