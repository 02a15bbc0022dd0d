"""Tod und Leben (Life and Death): tricks go to scored piles; one `war` job is one round."""

from __future__ import annotations

from dataclasses import dataclass

from casino.engine.cards import deck
from casino.engine.errors import InvalidDealError
from casino.engine.fairness import ChanceStream, shuffle
from casino.engine.war.common import RANK
from casino.engine.war.records import BattleRecord, Event, EventKind, Reason, WarGame, WarResult
from casino.engine.war.rules import WarRules


def play_tod_und_leben(rules: WarRules, deal: list[list[int]], *, record_events: bool = True) -> WarGame:
    if len({len(stock) for stock in deal}) > 1:
        raise InvalidDealError("Tod und Leben needs stocks of the same size")
    a, b = (list(stock) for stock in deal)
    scored = [0, 0]
    battles: list[BattleRecord] = []
    events: list[Event] | None = [] if record_events else None
    n = 0
    i = 0
    size = len(a)
    while i < size:
        n += 1
        up = (a[i], b[i])
        laid = [[a[i]], [b[i]]]
        if events is not None:
            events.append(Event(EventKind.BATTLE, n, seats=(0, 1)))
            events.append(Event(EventKind.TURN_UP, n, seat=0, cards=(a[i],)))
            events.append(Event(EventKind.TURN_UP, n, seat=1, cards=(b[i],)))
        war_steps = 0
        while RANK[a[i]] == RANK[b[i]]:
            war_steps += 1
            if i + 1 >= size:
                break
            i += 1
            laid[0].append(a[i])
            laid[1].append(b[i])
            if events is not None:
                events.append(Event(EventKind.WAR_STEP, n, seats=(0, 1), step=war_steps))
                events.append(Event(EventKind.FACE_UP, n, seat=0, cards=(a[i],), step=war_steps))
                events.append(Event(EventKind.FACE_UP, n, seat=1, cards=(b[i],), step=war_steps))
        if RANK[a[i]] == RANK[b[i]]:
            winner = None  # the very last cards tie: each seat takes back what it laid
            scored[0] += len(laid[0])
            scored[1] += len(laid[1])
            if events is not None:
                events.append(Event(EventKind.SCORE, n, seat=0, cards=tuple(laid[0])))
                events.append(Event(EventKind.SCORE, n, seat=1, cards=tuple(laid[1])))
        else:
            winner = 0 if RANK[a[i]] > RANK[b[i]] else 1
            scored[winner] += len(laid[0]) + len(laid[1])
            if events is not None:
                events.append(Event(EventKind.SCORE, n, seat=winner, cards=tuple(laid[0] + laid[1])))
        i += 1
        counts = tuple(scored)
        battles.append(BattleRecord(n, up, war_steps, winner, counts))
        if events is not None:
            events.append(Event(EventKind.BATTLE_END, n, counts=counts))
    counts = tuple(scored)
    winner = None if scored[0] == scored[1] else (0 if scored[0] > scored[1] else 1)
    return WarGame(
        rules=rules,
        deal=tuple(tuple(s) for s in deal),
        result=WarResult(winner, Reason.SCORED, n, counts),
        battles=tuple(battles),
        events=tuple(events) if events is not None else None,
    )


@dataclass(frozen=True, slots=True)
class MatchResult:
    rounds: tuple[WarGame, ...]
    rounds_won: tuple[int, int]
    drawn_rounds: int

    @property
    def winner(self) -> int | None:
        a, b = self.rounds_won
        return None if a == b else (0 if a > b else 1)


def play_tod_und_leben_match(rules: WarRules, rounds: int, stream: ChanceStream) -> MatchResult:
    """A match: `rounds` rounds, the 32 cards reshuffled from the stream before each."""
    if rounds < 1:
        raise InvalidDealError("a match has at least one round")
    cards = [c.id for c in deck(32)]
    games = []
    won = [0, 0]
    drawn = 0
    for _ in range(rounds):
        shuffled = shuffle(cards, stream)
        game = play_tod_und_leben(rules, [shuffled[0::2], shuffled[1::2]], record_events=False)
        games.append(game)
        if game.result.winner is None:
            drawn += 1
        else:
            won[game.result.winner] += 1
    return MatchResult(tuple(games), (won[0], won[1]), drawn)
