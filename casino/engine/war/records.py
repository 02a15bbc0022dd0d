"""What a War game leaves behind: its result, one record per battle, and the full event log."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from casino.engine.cards import ALL_CARDS, Card
from casino.engine.war.rules import WarRules


class Reason(enum.StrEnum):
    ALL_CARDS = "all_cards"
    LIMIT_COUNT = "limit_count"
    LIMIT_DRAW = "limit_draw"
    STUCK_DRAW = "stuck_draw"
    SHORT_DRAW = "short_draw"
    CYCLE = "cycle"
    BROKE = "broke"
    SCORED = "scored"


class EventKind(enum.StrEnum):
    BATTLE = "battle"  # a battle starts
    TURN_UP = "turn_up"  # a seat turns up its battle card
    WAR_STEP = "war_step"  # a tie declares a war step; `seats` fight it
    FACE_DOWN = "face_down"  # cards laid face down
    FACE_UP = "face_up"  # a card laid face up in a war step
    STAND = "stand"  # a seat with no card left stands on its last face-up card
    DROP_OUT = "drop_out"  # a seat short of cards leaves; its stock goes into the trick
    RESHUFFLE = "reshuffle"  # a capture pile turned over into a new stock (Steal War)
    STEAL = "steal"  # a seat steals another seat's capture pile (Steal War)
    VOID_STEAL = "void_steal"  # a steal made void (protection or a lower thief); the card is played
    PROTECT = "protect"  # a played card matching its own pile protects that pile this turn
    TAKE = "take"  # the winner takes the trick (cards in the order they join stock or pile)
    SCORE = "score"  # Tod und Leben: cards taken into a scored pile
    BATTLE_END = "battle_end"  # counts after the battle
    ROUND_END = "round_end"  # Tod und Leben: a round of a match ends


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    battle: int
    seat: int | None = None
    cards: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()
    step: int = 0
    counts: tuple[int, ...] = ()

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.kind.value, "battle": self.battle}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.cards:
            data["cards"] = [ALL_CARDS[c].code for c in self.cards]
        if self.seats:
            data["seats"] = list(self.seats)
        if self.step:
            data["step"] = self.step
        if self.counts:
            data["counts"] = list(self.counts)
        return data


@dataclass(frozen=True, slots=True)
class BattleRecord:
    n: int
    up: tuple[int | None, ...]  # card ids first turned up (None: a seat out of the game)
    war_steps: int
    winner: int | None
    counts: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "up": [None if c is None else ALL_CARDS[c].code for c in self.up],
            "war_steps": self.war_steps,
            "winner": self.winner,
            "counts": list(self.counts),
        }


@dataclass(frozen=True, slots=True)
class WarResult:
    winner: int | None
    reason: Reason
    battles: int
    counts: tuple[int, ...]
    loser: int | None = None
    has_loser: bool = False  # P'yanitsa results name a loser (possibly none)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "winner": self.winner,
            "reason": self.reason.value,
            "battles": self.battles,
            "counts": list(self.counts),
        }
        if self.has_loser:
            data["loser"] = self.loser
        return data


@dataclass(frozen=True, slots=True)
class WarGame:
    rules: WarRules
    deal: tuple[tuple[int, ...], ...]
    result: WarResult
    battles: tuple[BattleRecord, ...]
    events: tuple[Event, ...] | None = None

    def deal_cards(self) -> list[list[Card]]:
        return [[ALL_CARDS[c] for c in stock] for stock in self.deal]

    def as_json(self, *, events: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "result": self.result.as_json(),
            "battles": [b.as_json() for b in self.battles],
        }
        if events and self.events is not None:
            data["events"] = [e.as_json() for e in self.events]
        return data
