"""Steal War (RULES.md sections 5 and 8): capture piles, steals, swaps and protection.

Seats are played by agents, so that a person (through the API) or a bot takes the decisions:
whether to steal with the card a seat looks at, and which card of a won trick lies on top.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

from casino.engine.cards import ALL_CARDS, Card
from casino.engine.errors import BattleBudgetExceeded, DecisionRequired, IllegalActionError
from casino.engine.fairness import ChanceStream, shuffle
from casino.engine.war.common import RANK, _limit_result
from casino.engine.war.records import BattleRecord, Event, EventKind, Reason, WarGame, WarResult
from casino.engine.war.rules import Participants, WarRules


@dataclass(frozen=True, slots=True)
class StealView:
    """What a seat sees when it looks at its next card."""

    seat: int
    card: Card
    targets: tuple[int, ...]  # seats whose unprotected capture pile has this card's rank on top
    pile_sizes: tuple[int, ...]
    pile_tops: tuple[Card | None, ...]
    battle: int
    in_war: bool


@dataclass(frozen=True, slots=True)
class TopView:
    """A won trick, in the order it would be laid (seat 0's first card deepest)."""

    seat: int
    cards: tuple[Card, ...]
    battle: int


class StealAgent(Protocol):
    def choose_steal(self, view: StealView) -> int | None:
        """The seat whose pile to steal (one of `view.targets`), or None to play the card."""

    def choose_top(self, view: TopView) -> int:
        """The index in `view.cards` of the card to lay on top of the pile."""


class DefaultBot:
    """Steals whenever it may (the largest pile; the lowest seat on equal size); lays the lowest
    card of a won trick on top (the first in laying order on equal ranks)."""

    def choose_steal(self, view: StealView) -> int | None:
        if not view.targets:
            return None
        return max(view.targets, key=lambda s: (view.pile_sizes[s], -s))

    def choose_top(self, view: TopView) -> int:
        lowest = min(card.rank for card in view.cards)
        return next(i for i, card in enumerate(view.cards) if card.rank == lowest)


class ScriptedAgent:
    """Replays a person's earlier decisions in order; raises DecisionRequired when they run out,
    so that a service can replay a game up to the next decision the person has to make."""

    def __init__(self, steals: list[int | None] | None = None, tops: list[int] | None = None) -> None:
        self._steals = deque(steals or [])
        self._tops = deque(tops or [])
        self.pending: StealView | TopView | None = None

    def choose_steal(self, view: StealView) -> int | None:
        if not view.targets:
            return None
        if not self._steals:
            self.pending = view
            raise DecisionRequired(f"seat {view.seat} may steal with {view.card.code}: steal or play?")
        return self._steals.popleft()

    def choose_top(self, view: TopView) -> int:
        if len(view.cards) == 1:
            return 0
        if not self._tops:
            self.pending = view
            raise DecisionRequired(f"seat {view.seat} won {len(view.cards)} cards: which one on top?")
        return self._tops.popleft()


def play_steal(
    rules: WarRules,
    deal: list[list[int]],
    stream: ChanceStream,
    agents: list[StealAgent] | None = None,
    *,
    record_events: bool = True,
    battle_budget: int | None = None,
) -> WarGame:
    return _StealGame(rules, deal, stream, agents, record_events, battle_budget).play()


class _StealGame:
    def __init__(self, rules, deal, stream, agents, record_events, battle_budget=None) -> None:
        self.battle_budget = battle_budget
        self.rules = rules
        self.deal = deal
        self.n_seats = len(deal)
        self.stock = [deque(s) for s in deal]
        self.pile: list[list[int]] = [[] for _ in deal]  # bottom first: the top is pile[-1]
        self.stream = stream
        bot = DefaultBot()
        self.agents = list(agents) if agents is not None else [bot] * self.n_seats
        if len(self.agents) != self.n_seats:
            raise IllegalActionError("Steal War needs one agent per seat")
        self.events: list[Event] | None = [] if record_events else None
        self.battles: list[BattleRecord] = []
        self.n = 0

    def _event(self, kind: EventKind, **fields) -> None:
        if self.events is not None:
            self.events.append(Event(kind, self.n, **fields))

    def _holding(self, s: int) -> int:
        return len(self.stock[s]) + len(self.pile[s])

    def _ensure_stock(self, s: int) -> None:
        """A seat that needs a card and has an empty stock turns its pile over and shuffles it."""
        if not self.stock[s] and self.pile[s]:
            self.stock[s] = deque(shuffle(self.pile[s], self.stream))
            self.pile[s] = []
            self._event(EventKind.RESHUFFLE, seat=s, counts=(len(self.stock[s]),))

    def _fighting_cards(self, fighters: list[int], trick, face, in_war: bool) -> None:
        """Every fighter looks at its next card, steals or plays, until each has laid one to fight."""
        pending = list(fighters)
        protected: set[int] = set()
        while pending:
            for s in pending:
                self._ensure_stock(s)
            choices: dict[int, int | None] = {}
            tops = tuple(ALL_CARDS[p[-1]] if p else None for p in self.pile)
            sizes = tuple(len(p) for p in self.pile)
            for s in pending:
                card = self.stock[s][0]
                targets = tuple(
                    v
                    for v in range(self.n_seats)
                    if v != s and v not in protected and self.pile[v] and RANK[self.pile[v][-1]] == RANK[card]
                )
                choice = None
                if targets:
                    view = StealView(s, ALL_CARDS[card], targets, sizes, tops, self.n, in_war)
                    choice = self.agents[s].choose_steal(view)
                    if choice is not None and choice not in targets:
                        raise IllegalActionError(f"seat {s} cannot steal the pile of seat {choice}")
                choices[s] = choice
            players = [s for s in pending if choices[s] is None]
            for s in players:
                card = self.stock[s].popleft()
                trick[s].append(card)
                face[s] = card
                if self.pile[s] and RANK[self.pile[s][-1]] == RANK[card]:
                    protected.add(s)
                    self._event(EventKind.PROTECT, seat=s, cards=(card,))
            thieves: list[tuple[int, int]] = []
            aimed: set[int] = set()
            for s in pending:
                target = choices[s]
                if target is None:
                    continue
                if target in protected or target in aimed:
                    card = self.stock[s].popleft()  # a void steal's card is played, protecting nothing
                    trick[s].append(card)
                    face[s] = card
                    self._event(EventKind.VOID_STEAL, seat=s, cards=(card,), seats=(target,))
                else:
                    thieves.append((s, target))
                    aimed.add(target)
            before = [list(p) for p in self.pile]
            for thief, victim in thieves:
                card = self.stock[thief].popleft()
                own = [] if thief in aimed else before[thief]
                self.pile[thief] = own + before[victim] + [card]
                self._event(EventKind.STEAL, seat=thief, cards=(card,), seats=(victim,), counts=(len(before[victim]),))
            thief_seats = {t for t, _ in thieves}
            for victim in aimed:
                if victim not in thief_seats:
                    self.pile[victim] = []
            pending = sorted(thief_seats)
        for s in fighters:
            self._event(EventKind.FACE_UP if in_war else EventKind.TURN_UP, seat=s, cards=(face[s],))

    def play(self) -> WarGame:
        try:
            return self._play()
        except DecisionRequired as pause:
            pause.events = tuple(self.events or ())
            pause.battles = tuple(self.battles)
            pause.view = next((a.pending for a in self.agents if getattr(a, "pending", None) is not None), None)
            raise

    def _play(self) -> WarGame:
        rules = self.rules
        n_seats = self.n_seats
        need = rules.down + 1
        tied_only = rules.war_participants is Participants.TIED
        battles: list[BattleRecord] = self.battles
        alive = [s for s in range(n_seats) if self._holding(s)]
        result: WarResult | None = None
        if len(alive) <= 1:
            counts = tuple(self._holding(s) for s in range(n_seats))
            result = WarResult(alive[0] if alive else None, Reason.ALL_CARDS if alive else Reason.SHORT_DRAW, 0, counts)
        while result is None:
            self.n += 1
            n = self.n
            if self.battle_budget is not None and n > self.battle_budget:
                raise BattleBudgetExceeded(self.battle_budget)
            trick: list[list[int]] = [[] for _ in range(n_seats)]
            face: list[int | None] = [None] * n_seats
            self._event(EventKind.BATTLE, seats=tuple(alive))
            self._fighting_cards(alive, trick, face, in_war=False)
            up = tuple(face)
            in_war = list(alive)
            best = _best(face, alive)
            war_steps = 0
            winner: int | None = None
            draw = False
            while len(best) > 1:
                war_steps += 1
                participants = best if tied_only else in_war
                self._event(EventKind.WAR_STEP, seats=tuple(participants), step=war_steps)
                short = [s for s in participants if self._holding(s) < need]
                if short:
                    if len(short) == len(participants):
                        most = max(self._holding(s) for s in participants)
                        holders = [s for s in participants if self._holding(s) == most]
                        if len(holders) > 1:
                            draw = True
                            break
                        for s in list(participants):  # a copy: dropping removes seats from in_war
                            if s != holders[0]:
                                self._drop(s, trick, in_war, war_steps)
                        winner = holders[0]
                        break
                    for s in short:
                        self._drop(s, trick, in_war, war_steps)
                    participants = [s for s in participants if s not in short]
                    if len(participants) == 1:
                        winner = participants[0]
                        break
                for s in participants:
                    laid = []
                    for _ in range(rules.down):
                        self._ensure_stock(s)
                        laid.append(self.stock[s].popleft())
                    trick[s].extend(laid)
                    if laid:
                        self._event(EventKind.FACE_DOWN, seat=s, cards=tuple(laid), step=war_steps)
                self._fighting_cards(participants, trick, face, in_war=True)
                best = _best(face, participants)
            else:
                winner = best[0]

            if draw:
                counts = tuple(self._holding(s) for s in range(n_seats))
                battles.append(BattleRecord(n, up, war_steps, None, counts))
                self._event(EventKind.BATTLE_END, counts=counts)
                result = WarResult(None, Reason.SHORT_DRAW, n, counts)
                break

            ordered = [c for cards in trick for c in cards]
            view = TopView(winner, tuple(ALL_CARDS[c] for c in ordered), n)
            top_index = self.agents[winner].choose_top(view)
            if not isinstance(top_index, int) or not 0 <= top_index < len(ordered):
                raise IllegalActionError(f"seat {winner} must put one of the {len(ordered)} won cards on top")
            laid_order = ordered[:top_index] + ordered[top_index + 1 :] + [ordered[top_index]]
            self.pile[winner].extend(laid_order)
            counts = tuple(self._holding(s) for s in range(n_seats))
            alive = [s for s in range(n_seats) if counts[s]]
            battles.append(BattleRecord(n, up, war_steps, winner, counts))
            self._event(EventKind.TAKE, seat=winner, cards=tuple(laid_order))
            self._event(EventKind.BATTLE_END, counts=counts)
            if len(alive) == 1:
                result = WarResult(alive[0], Reason.ALL_CARDS, n, counts)
            elif rules.max_battles is not None and n >= rules.max_battles:
                result = _limit_result(rules, counts, n)
        return WarGame(
            rules=rules,
            deal=tuple(tuple(s) for s in self.deal),
            result=result,
            battles=tuple(battles),
            events=tuple(self.events) if self.events is not None else None,
        )

    def _drop(self, s: int, trick, in_war: list[int], step: int) -> None:
        rest = tuple(self.stock[s]) + tuple(self.pile[s])  # stock in order, then pile bottom to top
        trick[s].extend(rest)
        self.stock[s].clear()
        self.pile[s] = []
        if s in in_war:
            in_war.remove(s)
        self._event(EventKind.DROP_OUT, seat=s, cards=rest, step=step)


def _best(face, seats):
    top = max(RANK[face[s]] for s in seats)
    return [s for s in seats if RANK[face[s]] == top]
