"""Casino War (RULES.md section 3) as a state machine over frozen states.

    place_bets(...) -> RoundState  (phase RESOLVED, or AWAITING_DECISION on a tie)
    decide(state, action, cards)    -> RoundState  (phase RESOLVED)

Cards come from a `CardSource` in the order of the rule book: the player's card, the dealer's
card, the burned cards, the player's war card, the dealer's war card.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Protocol

from casino.engine.cards import Card, shoe
from casino.engine.errors import BetOffTableError, IllegalActionError, InvalidRulesError, ShoeExhaustedError
from casino.engine.fairness import ChanceStream, LazyShuffle, shuffle


class ShuffleMode(enum.StrEnum):
    FRESH = "fresh"
    PERSISTENT = "persistent"


class Action(enum.StrEnum):
    WAR = "war"
    SURRENDER = "surrender"


class Phase(enum.StrEnum):
    AWAITING_DECISION = "awaiting_decision"
    RESOLVED = "resolved"


class Outcome(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    SURRENDER = "surrender"
    WAR_WIN = "war_win"
    WAR_LOSE = "war_lose"
    WAR_TIE = "war_tie"


def _is_int(value: object) -> bool:
    return type(value) is int


@dataclass(frozen=True, slots=True)
class CasinoWarRules:
    """The table settings of section 3, with their defaults."""

    decks: int = 6
    burn: int = 3
    tie_pays: int = 10
    tie_after_tie_bonus: bool = False
    shuffle: ShuffleMode = ShuffleMode.FRESH
    penetration: int = 75  # percent of a persistent shoe dealt before the cut card
    house_rule: Action = Action.WAR  # the decision taken for a player who does not decide in time

    def __post_init__(self) -> None:
        if not _is_int(self.decks) or not 1 <= self.decks <= 8:
            raise InvalidRulesError("decks must be an integer from 1 to 8")
        if not _is_int(self.burn) or not 0 <= self.burn <= 5:
            raise InvalidRulesError("burn must be an integer from 0 to 5")
        if not _is_int(self.tie_pays) or not 1 <= self.tie_pays <= 30:
            raise InvalidRulesError("tie_pays must be an integer from 1 to 30")
        if not isinstance(self.tie_after_tie_bonus, bool):
            raise InvalidRulesError("tie_after_tie_bonus must be true or false")
        try:
            object.__setattr__(self, "shuffle", ShuffleMode(self.shuffle))
            object.__setattr__(self, "house_rule", Action(self.house_rule))
        except ValueError as exc:
            raise InvalidRulesError(str(exc)) from None
        if not _is_int(self.penetration) or not 50 <= self.penetration <= 90:
            raise InvalidRulesError("penetration must be an integer percentage from 50 to 90")

    def as_json(self) -> dict:
        """The rules as JSON values; `CasinoWarRules(**rules.as_json())` is the same rules."""
        return {
            "decks": self.decks,
            "burn": self.burn,
            "tie_pays": self.tie_pays,
            "tie_after_tie_bonus": self.tie_after_tie_bonus,
            "shuffle": self.shuffle.value,
            "penetration": self.penetration,
            "house_rule": self.house_rule.value,
        }


@dataclass(frozen=True, slots=True)
class TableLimits:
    """Bet limits in minor units; every bet is a multiple of `bet_step`."""

    min_bet: int
    max_bet: int
    bet_step: int = 1
    max_tie_bet: int = 0

    def __post_init__(self) -> None:
        for name in ("min_bet", "max_bet", "bet_step", "max_tie_bet"):
            if not _is_int(getattr(self, name)) or getattr(self, name) < 0:
                raise InvalidRulesError(f"{name} must be a non-negative integer of minor units")
        if self.bet_step < 1 or self.min_bet < self.bet_step or self.max_bet < self.min_bet:
            raise InvalidRulesError("limits need 1 <= bet_step <= min_bet <= max_bet")
        if self.min_bet % self.bet_step or self.max_bet % self.bet_step or self.max_tie_bet % self.bet_step:
            raise InvalidRulesError("min_bet, max_bet and max_tie_bet must be multiples of bet_step")

    def check(self, *, main: int, tie: int = 0) -> None:
        if not _is_int(main) or not _is_int(tie):
            raise BetOffTableError("bets are integers of minor units")
        if not self.min_bet <= main <= self.max_bet or main % self.bet_step:
            raise BetOffTableError(
                f"the main bet must be from {self.min_bet} to {self.max_bet} in steps of {self.bet_step}"
            )
        if tie and (tie < 0 or tie > self.max_tie_bet or tie % self.bet_step):
            raise BetOffTableError(f"the tie bet must be 0 or up to {self.max_tie_bet} in steps of {self.bet_step}")
        if tie < 0:
            raise BetOffTableError("the tie bet cannot be negative")


@dataclass(frozen=True, slots=True)
class Nets:
    """The player's net result of each bet, in minor units (negative: lost)."""

    main: int = 0
    raise_: int = 0
    tie: int = 0
    bonus: int = 0

    @property
    def total(self) -> int:
        return self.main + self.raise_ + self.tie + self.bonus

    def as_dict(self) -> dict[str, int]:
        return {"main": self.main, "raise": self.raise_, "tie": self.tie, "bonus": self.bonus}


@dataclass(frozen=True, slots=True)
class RoundState:
    rules: CasinoWarRules
    main_bet: int
    tie_bet: int
    player_card: Card
    dealer_card: Card
    phase: Phase
    raise_bet: int = 0
    decision: Action | None = None
    burned: tuple[Card, ...] = ()
    player_war_card: Card | None = None
    dealer_war_card: Card | None = None
    outcome: Outcome | None = None
    nets: Nets = field(default_factory=Nets)

    @property
    def is_tie(self) -> bool:
        return self.player_card.rank == self.dealer_card.rank

    @property
    def staked(self) -> int:
        """Everything the player has put on the table: main, tie and raise."""
        return self.main_bet + self.tie_bet + self.raise_bet

    @property
    def payout(self) -> int:
        """What settlement pays back to the wallet: stakes returned plus winnings."""
        return self.staked + self.nets.total if self.phase is Phase.RESOLVED else 0


class CardSource(Protocol):
    def draw(self) -> Card: ...


class FreshShoe(LazyShuffle):
    """A new shoe shuffled for one round, drawn lazily: the provably fair shoe of a nonce."""

    __slots__ = ()

    def __init__(self, decks: int, stream: ChanceStream) -> None:
        super().__init__(_shoe_cached(decks), stream)


class StackedShoe:
    """Cards in a given order (a replay, a test, the `casino-war` command line)."""

    __slots__ = ("_cards", "_position")

    def __init__(self, cards: list[Card] | tuple[Card, ...]) -> None:
        self._cards = tuple(cards)
        self._position = 0

    def draw(self) -> Card:
        if self._position >= len(self._cards):
            raise ShoeExhaustedError("the shoe ran out of cards")
        card = self._cards[self._position]
        self._position += 1
        return card


@dataclass(frozen=True, slots=True)
class PersistentShoe:
    """A shoe kept across rounds and reshuffled once the cut card has come out."""

    cards: tuple[Card, ...]
    position: int = 0
    cut: int = 0

    @classmethod
    def shuffled(cls, *, decks: int, penetration: int, stream: ChanceStream) -> PersistentShoe:
        cards = tuple(shuffle(_shoe_cached(decks), stream))
        return cls(cards=cards, position=0, cut=len(cards) * penetration // 100)

    @property
    def needs_shuffle(self) -> bool:
        """True once the cut card is reached: the next round starts on a new shoe."""
        return self.position >= self.cut

    @property
    def remaining(self) -> tuple[Card, ...]:
        return self.cards[self.position :]

    def source(self) -> StackedShoe:
        return StackedShoe(self.cards[self.position :])

    def advanced(self, count: int) -> PersistentShoe:
        return replace(self, position=self.position + count)


_SHOES: dict[int, tuple[Card, ...]] = {}


def _shoe_cached(decks: int) -> tuple[Card, ...]:
    cached = _SHOES.get(decks)
    if cached is None:
        cached = _SHOES[decks] = shoe(decks)
    return cached


def place_bets(
    *,
    rules: CasinoWarRules,
    main: int,
    tie: int = 0,
    cards: CardSource,
    limits: TableLimits | None = None,
) -> RoundState:
    """Deal the first two cards; resolve at once unless they tie."""
    if limits is not None:
        limits.check(main=main, tie=tie)
    elif not _is_int(main) or not _is_int(tie) or main <= 0 or tie < 0:
        raise BetOffTableError("the main bet is a positive integer and the tie bet a non-negative one")
    player = cards.draw()
    dealer = cards.draw()
    if player.rank != dealer.rank:
        won = player.rank > dealer.rank
        nets = Nets(main=main if won else -main, tie=-tie)
        return RoundState(
            rules=rules,
            main_bet=main,
            tie_bet=tie,
            player_card=player,
            dealer_card=dealer,
            phase=Phase.RESOLVED,
            outcome=Outcome.WIN if won else Outcome.LOSE,
            nets=nets,
        )
    return RoundState(
        rules=rules,
        main_bet=main,
        tie_bet=tie,
        player_card=player,
        dealer_card=dealer,
        phase=Phase.AWAITING_DECISION,
        nets=Nets(tie=tie * rules.tie_pays),
    )


def half_for_player(amount: int) -> int:
    """The one rounding rule of the games: of an odd number of minor units split in two (a
    surrender's main bet), the player gets the smaller half."""
    return amount // 2


def decide(state: RoundState, action: Action | str, cards: CardSource) -> RoundState:
    """Surrender, or go to war drawing the burned and war cards from `cards`."""
    if state.phase is not Phase.AWAITING_DECISION:
        raise IllegalActionError("this round is not waiting for a decision")
    try:
        action = Action(action)
    except ValueError:
        raise IllegalActionError(f"the decision is 'war' or 'surrender', not {action!r}") from None
    main = state.main_bet
    if action is Action.SURRENDER:
        returned = half_for_player(main)
        return replace(
            state,
            phase=Phase.RESOLVED,
            decision=action,
            outcome=Outcome.SURRENDER,
            nets=replace(state.nets, main=returned - main),
        )
    burned = tuple(cards.draw() for _ in range(state.rules.burn))
    player_war = cards.draw()
    dealer_war = cards.draw()
    if player_war.rank < dealer_war.rank:
        nets = replace(state.nets, main=-main, raise_=-main)
        outcome = Outcome.WAR_LOSE
    elif player_war.rank == dealer_war.rank:
        bonus = main if state.rules.tie_after_tie_bonus else 0
        nets = replace(state.nets, main=0, raise_=main, bonus=bonus)
        outcome = Outcome.WAR_TIE
    else:
        nets = replace(state.nets, main=0, raise_=main)
        outcome = Outcome.WAR_WIN
    return replace(
        state,
        phase=Phase.RESOLVED,
        decision=action,
        raise_bet=main,
        burned=burned,
        player_war_card=player_war,
        dealer_war_card=dealer_war,
        outcome=outcome,
        nets=nets,
    )


def play_round(
    *,
    rules: CasinoWarRules,
    main: int,
    tie: int = 0,
    cards: CardSource,
    decision: Action | str | None = None,
    limits: TableLimits | None = None,
) -> RoundState:
    """A whole round in one call; a tie with no decision takes the table's house rule."""
    state = place_bets(rules=rules, main=main, tie=tie, cards=cards, limits=limits)
    if state.phase is Phase.AWAITING_DECISION:
        state = decide(state, decision or rules.house_rule, cards)
    return state
