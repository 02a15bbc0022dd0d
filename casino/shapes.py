"""The casino's answers, each declared once (core/shapes.py): the selectors make them, the API sends
them, the round's webhook carries one, and /api/schema/ documents them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from core.shapes import ABSENT, shape, shape_field

Shuffle = Literal["fresh", "persistent"]
Decision = Literal["war", "surrender"]


@shape
class TableRulesShape:
    decks: int
    burn: int
    tie_pays: int
    tie_after_tie_bonus: bool
    shuffle: Shuffle
    decision_timeout_s: int


@shape
class HouseEdgeShape:
    war: float = shape_field("Always going to war, per unit of the main bet (0.0287713 = 2.877 %).")
    surrender: float
    tie_bet: float


@shape
class TableShape:
    id: str
    name: str
    currency: str
    min_bet: int
    max_bet: int
    bet_step: int
    max_tie_bet: int
    rules: TableRulesShape
    house_edge: HouseEdgeShape


@shape
class WarCardsShape:
    player_card: str
    dealer_card: str


@shape
class RoundFairnessShape:
    server_seed_hash: str
    client_seed: str
    nonce: int
    server_seed: str | None = shape_field("null until the seed pair is rotated")
    decks: int
    burn: int
    shuffle: Shuffle
    shoe_nonce: int | None = shape_field("persistent shoe: the nonce whose full shuffle is the shoe")
    shoe_position: int | None = shape_field("persistent shoe: where the round's first card lies in that shuffle")


@shape
class NetsShape:
    main: int
    raise_: int = shape_field(name="raise")
    tie: int
    bonus: int


@shape
class DecisionValuesShape:
    war: float = shape_field("Expected net of going to war, per unit of the main bet.")
    surrender: float


@shape
class RoundRulesShape:
    tie_pays: int = shape_field("The tie bet pays this many to 1.")
    tie_after_tie_bonus: bool = shape_field("A tie in the war pays a bonus equal to the main bet.")
    house_rule: Decision = shape_field("What the table decides for this round if its deadline passes.")


@shape
class RoundShape:
    id: str
    table: str
    status: Literal["awaiting_decision", "resolved", "settled"]
    currency: str
    main_bet: int
    tie_bet: int
    raise_: int = shape_field(name="raise")
    player_card: str
    dealer_card: str
    decision: Decision | None
    war: WarCardsShape | None
    outcome: Literal["win", "lose", "surrender", "war_win", "war_lose", "war_tie"] | None
    net: int | None
    payout: int | None
    nets: NetsShape | None
    decision_deadline: datetime | None
    decision_values: DecisionValuesShape | None
    decision_timed_out: bool = shape_field("The table took the decision: the deadline passed.")
    rules: RoundRulesShape = shape_field("The rules the round was placed under.")
    fairness: RoundFairnessShape
    created_at: datetime
    resolved_at: datetime | None
    settled_at: datetime | None


@shape
class PreviousSeedShape:
    server_seed: str
    server_seed_hash: str
    client_seed: str
    last_nonce: int | None


@shape
class FairnessShape:
    server_seed_hash: str
    client_seed: str
    nonce: int = shape_field("The nonce of the next round.")
    next_server_seed_hash: str = shape_field(
        "SHA-256 of the server seed drawn in advance: the next rotation moves to it (any client seed)."
    )
    previous: PreviousSeedShape | None


@shape
class MatchFairnessShape:
    server_seed_hash: str
    server_seed: str | None = shape_field("hidden while a person still decides")
    client_seed: str
    nonce: int


@shape
class MatchResultShape:
    winner: int | None
    reason: str
    battles: int
    counts: list[int]
    loser: int | None = shape_field(default=ABSENT)


@shape
class MatchBattleShape:
    n: int
    up: list[str | None]
    war_steps: int
    winner: int | None
    counts: list[int]


@shape
class MatchEventShape:
    type: str
    battle: int
    seat: int = shape_field(default=ABSENT)
    cards: list[str] = shape_field(default=ABSENT)
    seats: list[int] = shape_field(default=ABSENT)
    step: int = shape_field(default=ABSENT)
    counts: list[int] = shape_field(default=ABSENT)


@shape
class MatchQuestionShape:
    kind: Literal["steal", "top"]
    seat: int
    battle: int
    card: str = shape_field(default=ABSENT)
    targets: list[int] = shape_field(default=ABSENT)
    pile_sizes: list[int] = shape_field(default=ABSENT)
    pile_tops: list[str | None] = shape_field(default=ABSENT)
    in_war: bool = shape_field(default=ABSENT)
    cards: list[str] = shape_field(default=ABSENT)


@shape
class MatchPageShape:
    offset: int = shape_field("The battles skipped before this page.")
    limit: int = shape_field("The most battles this page holds.")
    battles: int = shape_field("The battles of the whole match (so far).")
    next: str | None = shape_field("The next page of battles and events, if any.", url=True)


@shape
class MatchShape:
    id: str
    preset: str
    options: dict
    seats: int
    human_seat: int | None
    status: Literal["awaiting_decision", "finished"]
    fairness: MatchFairnessShape
    deal: list[list[str]] | None = shape_field("each seat's stock, top first; null while a person still decides")
    deal_counts: list[int] = shape_field("cards dealt to each seat")
    result: MatchResultShape | None
    battles: list[MatchBattleShape] = shape_field("This page's battles (`page`).")
    events: list[MatchEventShape] = shape_field("The events of this page's battles.")
    page: MatchPageShape
    pending: MatchQuestionShape | None
    created_at: str
    finished_at: str | None


@shape
class WarPresetShape:
    name: str
    family: str
    seats: list[int] = shape_field("fewest and most seats")
    deck_size: int
    defaults: dict
    accepts_jokers: bool
    description: str


@shape
class GameLaunchShape:
    session: str = shape_field("The game session's id (for DELETE).")
    url: str = shape_field("Opens once, within 60 s: in an iframe of the partner's site or a window.", url=True)
    expires_at: datetime = shape_field("After this the URL no longer opens.")
