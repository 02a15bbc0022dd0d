"""Play a War game from a seed (shuffle and deal) or from an explicit deal (RULES.md sections 6, 8)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from casino.engine.cards import JOKERS, Card, card, deck
from casino.engine.errors import InvalidDealError, InvalidRulesError, StreamRequiredError
from casino.engine.fairness import ChanceStream, HmacStream, shuffle
from casino.engine.war.common import play_common
from casino.engine.war.records import WarGame
from casino.engine.war.rules import Family, WarRules, build_rules
from casino.engine.war.steal import StealAgent, play_steal
from casino.engine.war.tod_und_leben import play_tod_und_leben


def fresh_deck(rules: WarRules) -> tuple[Card, ...]:
    return deck(rules.deck_size, jokers=rules.jokers)


def deal_round_robin(cards: Sequence[int], seats: int) -> list[list[int]]:
    """One card at a time from seat 0 until fewer cards remain than seats; the rest are set aside."""
    per_seat = len(cards) // seats
    return [list(cards[s : per_seat * seats : seats]) for s in range(seats)]


def seeded_deal(rules: WarRules, stream: ChanceStream) -> list[list[int]]:
    """Shuffle the preset's fresh deck from the start of the stream and deal it."""
    shuffled = shuffle([c.id for c in fresh_deck(rules)], stream)
    if not rules.split_jokers:
        return deal_round_robin(shuffled, rules.seats)
    joker_ids = {j.id for j in JOKERS}
    stocks = deal_round_robin([c for c in shuffled if c not in joker_ids], rules.seats)
    order = list(range(rules.seats))  # the first two positions of a lazy forward Fisher-Yates
    j = stream.uniform(rules.seats)
    order[0], order[j] = order[j], order[0]
    if rules.seats > 2:
        j = 1 + stream.uniform(rules.seats - 1)
        order[1], order[j] = order[j], order[1]
    for joker, seat in zip(JOKERS, order[:2], strict=True):
        stock = stocks[seat]
        stock.insert(stream.uniform(len(stock) + 1), joker.id)
    return stocks


def parse_deal(rules: WarRules, raw: Any) -> list[list[int]]:
    if not isinstance(raw, list) or not all(isinstance(stock, list) for stock in raw):
        raise InvalidDealError("a deal is a list of stocks, each a list of cards, top first")
    allowed = {c.id for c in fresh_deck(rules)}
    seen: set[int] = set()
    stocks = []
    for stock in raw:
        ids = []
        for code in stock:
            c = card(code)
            if c.id not in allowed:
                raise InvalidDealError(f"{c.code} is not a card of the {rules.preset} deck")
            if c.id in seen:
                raise InvalidDealError(f"{c.code} is dealt twice")
            seen.add(c.id)
            ids.append(c.id)
        stocks.append(ids)
    if not seen:
        raise InvalidDealError("the deal holds no cards")
    return stocks


def play_war(
    preset: str,
    options: dict[str, Any] | None = None,
    *,
    deal: list[list[str]] | None = None,
    seed: str | None = None,
    client_seed: str = "",
    nonce: int = 0,
    stream: ChanceStream | None = None,
    agents: list[StealAgent] | None = None,
    record_events: bool = True,
) -> WarGame:
    """Play one game. Give `seed` (a 64-hex server seed) or `stream`, and/or an explicit `deal`."""
    options = dict(options or {})
    if deal is not None:
        if not isinstance(deal, list):
            raise InvalidDealError("a deal is a list of stocks")
        if "seats" in options and options["seats"] != len(deal):
            raise InvalidRulesError("the 'seats' option is for seeded games; a deal has its own seats")
        options.pop("seats", None)
        rules = build_rules(preset, options, seats=len(deal))
    else:
        rules = build_rules(preset, options)
    if stream is None and seed is not None:
        stream = HmacStream(seed, client_seed, nonce)
    if deal is not None:
        stocks = parse_deal(rules, deal)
    elif stream is not None:
        stocks = seeded_deal(rules, stream)
    else:
        raise InvalidDealError("a game needs a seed or a deal")
    return play_dealt(rules, stocks, stream, agents=agents, record_events=record_events)


def play_dealt(
    rules: WarRules,
    stocks: list[list[int]],
    stream: ChanceStream | None,
    *,
    agents: list[StealAgent] | None = None,
    record_events: bool = True,
    battle_budget: int | None = None,
) -> WarGame:
    """Play from a validated position of card ids. `battle_budget`: a game that has not ended
    after that many battles raises BattleBudgetExceeded (Tod und Leben never lasts beyond its
    deck of at most 27 tricks); shorter games are played exactly as without it."""
    if rules.uses_stream_in_play and stream is None:
        raise StreamRequiredError(f"{rules.preset} draws chance during play: give it a seed")
    if rules.family is Family.TOD_UND_LEBEN:
        return play_tod_und_leben(rules, stocks, record_events=record_events)
    if rules.family is Family.STEAL:
        return play_steal(rules, stocks, stream, agents, record_events=record_events, battle_budget=battle_budget)
    return play_common(rules, stocks, stream, record_events=record_events, battle_budget=battle_budget)
