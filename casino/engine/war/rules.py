"""War presets (RULES.md section 5) and their options (section 8), validated into `WarRules`."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from casino.engine.cards import RANK_CHARS
from casino.engine.errors import InvalidRulesError


class Family(enum.StrEnum):
    COMMON = "common"  # the model of section 4 (classic, standard, one_down, multiplayer, ...)
    RAZBOI = "razboi"
    STEAL = "steal"
    PYANITSA = "pyanitsa"
    TOD_UND_LEBEN = "tod_und_leben"


class Participants(enum.StrEnum):
    ALL = "all"
    TIED = "tied"


class Gather(enum.StrEnum):
    SEAT = "seat"
    WINNER = "winner"
    SHUFFLE = "shuffle"


class OutOfCards(enum.StrEnum):
    LAST_CARD = "last_card"
    LOSE = "lose"


class OnLimit(enum.StrEnum):
    DRAW = "draw"
    COUNT = "count"


class TieMethod(enum.StrEnum):
    UP = "up"
    DOWN_UP = "down_up"


class Objective(enum.StrEnum):
    BROKE = "broke"
    DRUNKARD = "drunkard"


# The length of a Război war by the tied rank (index = rank 0..15): pips, ten for T J Q K, eleven for A.
DEFAULT_RAZBOI_VALUES: tuple[int, ...] = (0, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11, 0)


@dataclass(frozen=True)
class WarRules:
    preset: str
    family: Family
    seats: int
    deck_size: int = 52
    down: int = 3
    war_participants: Participants = Participants.ALL
    gather: Gather = Gather.SEAT
    out_of_cards: OutOfCards = OutOfCards.LAST_CARD
    max_battles: int | None = None
    on_limit: OnLimit = OnLimit.DRAW
    jokers: bool = False
    split_jokers: bool = False
    lowest_wins: bool = False
    values: tuple[int, ...] = DEFAULT_RAZBOI_VALUES
    tie: TieMethod = TieMethod.UP
    objective: Objective = Objective.BROKE

    @property
    def uses_stream_in_play(self) -> bool:
        """Whether the game draws chance after the deal (then it cannot cycle deterministically)."""
        return self.gather is Gather.SHUFFLE or self.family in (Family.PYANITSA, Family.STEAL)

    @property
    def detects_cycles(self) -> bool:
        return not self.uses_stream_in_play and self.max_battles is None and self.family is not Family.TOD_UND_LEBEN


@dataclass(frozen=True)
class Preset:
    name: str
    family: Family
    seats: tuple[int, int]
    deck_size: int
    defaults: dict[str, Any]
    accepts_jokers: bool = True
    description: str = ""


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("classic", Family.COMMON, (2, 2), 52, {"down": 1}, description="pagat's basic game: 1 down, 1 up"),
        Preset("standard", Family.COMMON, (2, 2), 52, {"down": 3}, description="3 down, 1 up; no limit"),
        Preset(
            "one_down",
            Family.COMMON,
            (2, 4),
            52,
            {"down": 1, "war_participants": "all", "max_battles": 1000, "on_limit": "draw"},
            description="1 down, 1 up, every seat fights; a draw after 1000 battles",
        ),
        Preset(
            "multiplayer",
            Family.COMMON,
            (3, 4),
            52,
            {"down": 1, "war_participants": "all"},
            description="pagat's three or four players: every seat fights a war",
        ),
        Preset(
            "three_player",
            Family.COMMON,
            (3, 3),
            52,
            {"down": 3, "war_participants": "tied"},
            description="17 each, last card aside; only the tied seats fight",
        ),
        Preset("razboi", Family.RAZBOI, (2, 4), 52, {"down": 0}, accepts_jokers=False, description="Romanian War"),
        Preset(
            "steal",
            Family.STEAL,
            (2, 4),
            52,
            {"down": 3, "jokers": True},
            description="Steal War with capture piles",
        ),
        Preset(
            "pyanitsa",
            Family.PYANITSA,
            (2, 4),
            36,
            {"down": 0, "gather": "shuffle"},
            accepts_jokers=False,
            description="Russian Drunkard: the six beats the ace",
        ),
        Preset(
            "tod_und_leben",
            Family.TOD_UND_LEBEN,
            (2, 2),
            32,
            {"down": 0},
            accepts_jokers=False,
            description="German Life and Death: tricks are scored, not played again",
        ),
        Preset(
            "peace",
            Family.COMMON,
            (2, 2),
            52,
            {"down": 5, "lowest_wins": True},
            description="the lowest card wins",
        ),
    )
}

OPTION_TYPES: dict[str, type | tuple[type, ...]] = {
    "seats": int,
    "down": int,
    "war_participants": str,
    "gather": str,
    "out_of_cards": str,
    "max_battles": (int, type(None)),
    "on_limit": str,
    "jokers": bool,
    "split_jokers": bool,
    "values": dict,
    "deck": str,
    "tie": str,
    "objective": str,
}


def _enum(enum_type: type[enum.StrEnum], key: str, value: str) -> Any:
    try:
        return enum_type(value)
    except ValueError:
        allowed = "/".join(member.value for member in enum_type)
        raise InvalidRulesError(f"option {key!r} is one of {allowed}, not {value!r}") from None


def _check_type(key: str, value: Any) -> None:
    expected = OPTION_TYPES.get(key)
    if expected is None:
        raise InvalidRulesError(f"unknown option {key!r}; options are {', '.join(sorted(OPTION_TYPES))}")
    if isinstance(value, bool) and expected is not bool:
        raise InvalidRulesError(f"option {key!r} must not be a boolean")
    if not isinstance(value, expected):
        raise InvalidRulesError(f"option {key!r} has the wrong JSON type ({type(value).__name__})")


def _parse_values(raw: dict) -> tuple[int, ...]:
    values = list(DEFAULT_RAZBOI_VALUES)
    for key, value in raw.items():
        rank_char = str(key).strip().upper().replace("10", "T")
        if len(rank_char) != 1 or rank_char not in RANK_CHARS:
            raise InvalidRulesError(f"values: {key!r} is not a rank (2-9, T, J, Q, K, A)")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidRulesError(f"values: the length of a war on {key!r} must be an integer >= 1")
        values[RANK_CHARS.index(rank_char) + 2] = value
    return tuple(values)


def build_rules(preset: str, options: dict[str, Any] | None = None, *, seats: int | None = None) -> WarRules:
    """The rules of `preset` with `options` applied, or InvalidRulesError saying why not.

    `seats` is the number of seats of an explicit deal (it wins over the `seats` option).
    """
    if not isinstance(preset, str) or preset not in PRESETS:
        if preset == "casino_war":
            raise InvalidRulesError("casino_war is the betting game: use the casino-war job")
        raise InvalidRulesError(f"unknown preset {preset!r}; presets are {', '.join(PRESETS)}")
    spec = PRESETS[preset]
    options = dict(options or {})
    if not isinstance(options, dict):
        raise InvalidRulesError("options must be a JSON object")
    for key, value in options.items():
        _check_type(key, value)
    family = spec.family

    refused = {
        "down": family in (Family.RAZBOI, Family.PYANITSA)
        or (preset == "peace" and options.get("down") != 5)
        or (preset == "one_down" and options.get("down") != 1)
        or (family is Family.TOD_UND_LEBEN and options.get("down") != 0),
        "gather": family is Family.STEAL,
        "out_of_cards": family is Family.STEAL,
        "jokers": not spec.accepts_jokers,
        "split_jokers": not spec.accepts_jokers,
        "values": family is not Family.RAZBOI,
        "deck": family is not Family.PYANITSA,
        "tie": family is not Family.PYANITSA,
        "objective": family is not Family.PYANITSA,
    }
    reasons = {
        "down": {
            Family.RAZBOI: "Război's wars are as long as the tied rank's value",
            Family.PYANITSA: "P'yanitsa settles ties with its 'tie' method",
        }.get(family)
        or (
            "a peace always lays five cards face down"
            if preset == "peace"
            else "one_down lays exactly one card face down"
            if preset == "one_down"
            else "Tod und Leben lays no card face down"
        ),
        "gather": "Steal War lays won tricks on capture piles",
        "out_of_cards": "in Steal War a seat that runs out of cards during a war loses",
        "jokers": f"{preset} is not played with jokers",
        "split_jokers": f"{preset} is not played with jokers",
        "values": "only Război takes a value table",
        "deck": "only P'yanitsa chooses its deck",
        "tie": "only P'yanitsa chooses a tie method",
        "objective": "only P'yanitsa has an objective",
    }
    for key in options:
        if refused.get(key):
            raise InvalidRulesError(f"option {key!r} is refused for {preset}: {reasons[key]}")

    merged: dict[str, Any] = {**spec.defaults, **options}
    seat_count = seats if seats is not None else merged.get("seats", spec.seats[0])
    low, high = spec.seats
    if not low <= seat_count <= high:
        allowed = str(low) if low == high else f"{low} to {high}"
        raise InvalidRulesError(f"{preset} is played by {allowed} seats, not {seat_count}")

    deck_size = spec.deck_size
    if family is Family.PYANITSA:
        deck_choice = merged.get("deck", "36")
        if deck_choice not in ("36", "52"):
            raise InvalidRulesError('option \'deck\' is "36" or "52"')
        deck_size = int(deck_choice)

    down = merged.get("down", 3)
    if family is Family.PYANITSA:
        tie = _enum(TieMethod, "tie", merged.get("tie", "up"))
        down = 1 if tie is TieMethod.DOWN_UP else 0
    else:
        tie = TieMethod.UP
    if down < 0:
        raise InvalidRulesError("option 'down' must be >= 0")

    max_battles = merged.get("max_battles")
    if max_battles is not None and max_battles < 1:
        raise InvalidRulesError("option 'max_battles' must be >= 1")

    split_jokers = bool(merged.get("split_jokers", False))
    jokers = bool(merged.get("jokers", False)) or split_jokers
    if options.get("jokers") is False and split_jokers:
        raise InvalidRulesError("split_jokers needs the jokers")
    if family is Family.STEAL and options.get("jokers") is False:
        raise InvalidRulesError("Steal War is played with the two jokers")

    rules = WarRules(
        preset=preset,
        family=family,
        seats=seat_count,
        deck_size=deck_size,
        down=down,
        war_participants=_enum(Participants, "war_participants", merged.get("war_participants", "all")),
        gather=_enum(Gather, "gather", merged.get("gather", "seat")),
        out_of_cards=_enum(OutOfCards, "out_of_cards", merged.get("out_of_cards", "last_card")),
        max_battles=max_battles,
        on_limit=_enum(OnLimit, "on_limit", merged.get("on_limit", "draw")),
        jokers=jokers,
        split_jokers=split_jokers,
        lowest_wins=bool(merged.get("lowest_wins", False)),
        values=_parse_values(merged["values"]) if "values" in merged else DEFAULT_RAZBOI_VALUES,
        tie=tie,
        objective=_enum(Objective, "objective", merged.get("objective", "broke")),
    )
    return rules
