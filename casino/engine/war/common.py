"""The common model of RULES.md section 4, with Război's wars, Peace's lowest card and
P'yanitsa's six-beats-ace and objectives. Cards are ids (`Card.id`) inside the loop: ints hash
and compare fast, which the cycle check after every battle needs.
"""

from __future__ import annotations

from collections import deque

from casino.engine.cards import ACE, ALL_CARDS
from casino.engine.errors import BattleBudgetExceeded
from casino.engine.fairness import ChanceStream, shuffle
from casino.engine.war.records import BattleRecord, Event, EventKind, Reason, WarGame, WarResult
from casino.engine.war.rules import Family, Gather, Objective, OnLimit, OutOfCards, Participants, WarRules

RANK = tuple(c.rank for c in ALL_CARDS)


def _key_function(rules: WarRules):
    """How a set of compared cards ranks: a function (face, seats) -> the seats holding the best."""
    if rules.family is Family.PYANITSA:
        six = 6 if rules.deck_size == 36 else 2

        def best(face, seats):
            ranks = [RANK[face[s]] for s in seats]
            ace_present = ACE in ranks
            keys = [(20 if (ace_present and r == six) else r) for r in ranks]
            top = max(keys)
            return [s for s, k in zip(seats, keys, strict=True) if k == top]

        return best
    if rules.lowest_wins:

        def best(face, seats):
            low = min(RANK[face[s]] for s in seats)
            return [s for s in seats if RANK[face[s]] == low]

        return best

    def best(face, seats):
        if len(seats) == 2:
            a, b = seats
            ra, rb = RANK[face[a]], RANK[face[b]]
            return [a] if ra > rb else [b] if rb > ra else [a, b]
        top = max(RANK[face[s]] for s in seats)
        return [s for s in seats if RANK[face[s]] == top]

    return best


def play_common(
    rules: WarRules,
    deal: list[list[int]],
    stream: ChanceStream | None,
    *,
    record_events: bool = True,
    battle_budget: int | None = None,
) -> WarGame:
    n_seats = len(deal)
    if n_seats == 2 and not record_events and rules.family is Family.COMMON and all(deal):
        return _play_two_seats(rules, deal, stream, battle_budget)
    stocks = [deque(stock) for stock in deal]
    best_of = _key_function(rules)
    is_razboi = rules.family is Family.RAZBOI
    is_pyanitsa = rules.family is Family.PYANITSA
    down = rules.down
    need = down + 1
    lose_rule = rules.out_of_cards is OutOfCards.LOSE
    tied_only = rules.war_participants is Participants.TIED
    gather = rules.gather
    max_battles = rules.max_battles
    values = rules.values
    seen = {tuple(tuple(s) for s in stocks)} if rules.detects_cycles else None
    events: list[Event] | None = [] if record_events else None
    battles: list[BattleRecord] = []
    seat_range = range(n_seats)
    alive = [s for s in seat_range if stocks[s]]
    result: WarResult | None = None
    n = 0

    if len(alive) <= 1:
        result = _end_at_deal(rules, alive, stocks)

    while result is None:
        n += 1
        if battle_budget is not None and n > battle_budget:
            raise BattleBudgetExceeded(battle_budget)
        trick: list[list[int]] = [[] for _ in seat_range]
        face: list[int | None] = [None] * n_seats
        for s in alive:
            card = stocks[s].popleft()
            trick[s].append(card)
            face[s] = card
        up = tuple(face)
        if events is not None:
            events.append(Event(EventKind.BATTLE, n, seats=tuple(alive)))
            events.extend(Event(EventKind.TURN_UP, n, seat=s, cards=(face[s],)) for s in alive)
        in_war = list(alive)
        best = best_of(face, alive)
        war_steps = 0
        winner: int | None = None
        draw_reason: Reason | None = None

        while len(best) > 1:
            war_steps += 1
            participants = best if tied_only else in_war
            if events is not None:
                events.append(Event(EventKind.WAR_STEP, n, seats=tuple(participants), step=war_steps))
            if is_razboi:
                war_rank = RANK[face[best[0]]]
                out = [s for s in participants if not stocks[s]]
                if out:
                    for s in out:
                        in_war.remove(s)
                        if events is not None:
                            events.append(Event(EventKind.DROP_OUT, n, seat=s, step=war_steps))
                    participants = [s for s in participants if stocks[s]]
                if not participants:
                    draw_reason = Reason.SHORT_DRAW
                    break
                if len(participants) == 1:
                    winner = participants[0]
                    break
                length = min(values[war_rank], min(len(stocks[s]) for s in participants))
                for s in participants:
                    _lay(stocks[s], trick[s], face, s, length, n, war_steps, events)
            elif lose_rule:
                short = [s for s in participants if len(stocks[s]) < need]
                if short:
                    if len(short) == len(participants):
                        most = max(len(stocks[s]) for s in participants)
                        holders = [s for s in participants if len(stocks[s]) == most]
                        if len(holders) > 1:
                            draw_reason = Reason.SHORT_DRAW
                            break
                        for s in list(participants):  # a copy: dropping removes seats from in_war
                            if s != holders[0]:
                                _drop(stocks[s], trick[s], s, in_war, n, war_steps, events)
                        winner = holders[0]
                        break
                    for s in short:
                        _drop(stocks[s], trick[s], s, in_war, n, war_steps, events)
                    participants = [s for s in participants if s not in short]
                    if len(participants) == 1:
                        winner = participants[0]
                        break
                for s in participants:
                    _lay(stocks[s], trick[s], face, s, need, n, war_steps, events)
            else:
                if not any(stocks[s] for s in participants):
                    draw_reason = Reason.STUCK_DRAW
                    break
                for s in participants:
                    k = len(stocks[s])
                    if k == 0:
                        if events is not None:
                            events.append(Event(EventKind.STAND, n, seat=s, cards=(face[s],), step=war_steps))
                        continue
                    _lay(stocks[s], trick[s], face, s, need if k >= need else k, n, war_steps, events)
            best = best_of(face, participants)
        else:
            winner = best[0]

        if draw_reason is not None:
            counts = tuple(len(st) for st in stocks)
            battles.append(BattleRecord(n, up, war_steps, None, counts))
            if events is not None:
                events.append(Event(EventKind.BATTLE_END, n, counts=counts))
            result = WarResult(None, draw_reason, n, counts, has_loser=is_pyanitsa)
            break

        if gather is Gather.SEAT:
            taken = [c for cards in trick for c in cards]
        elif gather is Gather.WINNER:
            taken = trick[winner] + [c for s in seat_range if s != winner for c in trick[s]]
        else:
            taken = shuffle([c for cards in trick for c in cards], stream)
        stocks[winner].extend(taken)
        counts = tuple(len(st) for st in stocks)
        previously_alive = alive
        alive = [s for s in seat_range if stocks[s]]
        battles.append(BattleRecord(n, up, war_steps, winner, counts))
        if events is not None:
            events.append(Event(EventKind.TAKE, n, seat=winner, cards=tuple(taken)))
            events.append(Event(EventKind.BATTLE_END, n, counts=counts))

        if is_pyanitsa:
            result = _pyanitsa_end(rules, previously_alive, alive, counts, n)
        elif len(alive) == 1:
            result = WarResult(alive[0], Reason.ALL_CARDS, n, counts)
        if result is not None:
            break
        if max_battles is not None and n >= max_battles:
            result = _limit_result(rules, counts, n)
            break
        if seen is not None:
            state = tuple(tuple(st) for st in stocks)
            if state in seen:
                result = WarResult(None, Reason.CYCLE, n, counts)
                break
            seen.add(state)

    return WarGame(
        rules=rules,
        deal=tuple(tuple(stock) for stock in deal),
        result=result,
        battles=tuple(battles),
        events=tuple(events) if events is not None else None,
    )


def _play_two_seats(
    rules: WarRules, deal: list[list[int]], stream: ChanceStream | None, battle_budget: int | None = None
) -> WarGame:
    """The common model for two seats without an event log: the same game as the general loop
    (tests compare them battle for battle), with the per-battle bookkeeping of any number of
    seats taken out. Two seats always fight a war together, so `war_participants` cannot matter."""
    a, b = deque(deal[0]), deque(deal[1])
    rank = RANK
    lowest = rules.lowest_wins
    need = rules.down + 1
    lose_rule = rules.out_of_cards is OutOfCards.LOSE
    gather = rules.gather
    max_battles = rules.max_battles
    seen = {(tuple(a), tuple(b))} if rules.detects_cycles else None
    battles: list[BattleRecord] = []
    append = battles.append
    result: WarResult | None = None
    n = 0
    while True:
        n += 1
        if battle_budget is not None and n > battle_budget:
            raise BattleBudgetExceeded(battle_budget)
        fa, fb = a.popleft(), b.popleft()
        up = (fa, fb)
        ta, tb = [fa], [fb]
        war_steps = 0
        winner: int | None = None
        while True:
            ra, rb = rank[fa], rank[fb]
            if ra != rb:
                winner = (0 if ra < rb else 1) if lowest else (0 if ra > rb else 1)
                break
            war_steps += 1
            if lose_rule:
                la, lb = len(a), len(b)
                if la < need or lb < need:
                    if la == lb:
                        winner = None  # both short by the same count: a draw
                    else:
                        winner = 0 if la > lb else 1
                        loser_stock, loser_trick = (b, tb) if winner == 0 else (a, ta)
                        loser_trick.extend(loser_stock)
                        loser_stock.clear()
                    break
                laid_a = [a.popleft() for _ in range(need)]
                laid_b = [b.popleft() for _ in range(need)]
                ta += laid_a
                tb += laid_b
                fa, fb = laid_a[-1], laid_b[-1]
            else:
                if not a and not b:
                    winner = None  # both stand on equal last cards: stuck
                    break
                if a:
                    laid_a = [a.popleft() for _ in range(need if len(a) >= need else len(a))]
                    ta += laid_a
                    fa = laid_a[-1]
                if b:
                    laid_b = [b.popleft() for _ in range(need if len(b) >= need else len(b))]
                    tb += laid_b
                    fb = laid_b[-1]
        if winner is None:
            counts = (len(a), len(b))
            append(BattleRecord(n, up, war_steps, None, counts))
            result = WarResult(None, Reason.SHORT_DRAW if lose_rule else Reason.STUCK_DRAW, n, counts)
            break
        if gather is Gather.SEAT:
            taken = ta + tb
        elif gather is Gather.WINNER:
            taken = ta + tb if winner == 0 else tb + ta
        else:
            taken = shuffle(ta + tb, stream)
        (a if winner == 0 else b).extend(taken)
        counts = (len(a), len(b))
        append(BattleRecord(n, up, war_steps, winner, counts))
        if not a or not b:
            result = WarResult(winner, Reason.ALL_CARDS, n, counts)
            break
        if max_battles is not None and n >= max_battles:
            result = _limit_result(rules, counts, n)
            break
        if seen is not None:
            state = (tuple(a), tuple(b))
            if state in seen:
                result = WarResult(None, Reason.CYCLE, n, counts)
                break
            seen.add(state)
    return WarGame(
        rules=rules,
        deal=tuple(tuple(stock) for stock in deal),
        result=result,
        battles=tuple(battles),
        events=None,
    )


def _lay(stock, trick_cards, face, seat, count, n, step, events) -> None:
    """Lay `count` cards: all face down but the last, which is face up and stands for the seat."""
    laid = [stock.popleft() for _ in range(count)]
    trick_cards.extend(laid)
    face[seat] = laid[-1]
    if events is not None:
        if count > 1:
            events.append(Event(EventKind.FACE_DOWN, n, seat=seat, cards=tuple(laid[:-1]), step=step))
        events.append(Event(EventKind.FACE_UP, n, seat=seat, cards=(laid[-1],), step=step))


def _drop(stock, trick_cards, seat, in_war, n, step, events) -> None:
    """A seat short of cards leaves the game; its stock goes into the trick after what it laid."""
    rest = tuple(stock)
    trick_cards.extend(rest)
    stock.clear()
    if seat in in_war:
        in_war.remove(seat)
    if events is not None:
        events.append(Event(EventKind.DROP_OUT, n, seat=seat, cards=rest, step=step))


def _end_at_deal(rules: WarRules, alive: list[int], stocks) -> WarResult:
    counts = tuple(len(s) for s in stocks)
    if rules.family is Family.PYANITSA:
        if not alive:
            return WarResult(None, Reason.SHORT_DRAW, 0, counts, has_loser=True)
        holder = alive[0]
        if rules.objective is Objective.DRUNKARD:
            other = 1 - holder if rules.seats == 2 else None
            return WarResult(other, Reason.ALL_CARDS, 0, counts, loser=holder, has_loser=True)
        return WarResult(holder, Reason.ALL_CARDS, 0, counts, has_loser=True)
    if not alive:
        return WarResult(None, Reason.SHORT_DRAW, 0, counts)
    return WarResult(alive[0], Reason.ALL_CARDS, 0, counts)


def _unique(counts: tuple[int, ...], pick) -> int | None:
    target = pick(counts)
    holders = [s for s, c in enumerate(counts) if c == target]
    return holders[0] if len(holders) == 1 else None


def _limit_result(rules: WarRules, counts: tuple[int, ...], n: int) -> WarResult:
    is_pyanitsa = rules.family is Family.PYANITSA
    if rules.on_limit is OnLimit.DRAW:
        return WarResult(None, Reason.LIMIT_DRAW, n, counts, has_loser=is_pyanitsa)
    most = _unique(counts, max)
    if not is_pyanitsa:
        return WarResult(most, Reason.LIMIT_COUNT, n, counts)
    fewest = _unique(counts, min)
    if rules.objective is Objective.BROKE:
        return WarResult(most, Reason.LIMIT_COUNT, n, counts, loser=fewest, has_loser=True)
    return WarResult(fewest, Reason.LIMIT_COUNT, n, counts, loser=most, has_loser=True)


def _pyanitsa_end(
    rules: WarRules, previously_alive: list[int], alive: list[int], counts: tuple[int, ...], n: int
) -> WarResult | None:
    two_seats = rules.seats == 2
    if rules.objective is Objective.BROKE:
        ran_out = [s for s in previously_alive if s not in alive]
        if not ran_out:
            return None
        if len(ran_out) == 1:
            loser = ran_out[0]
            if two_seats:
                return WarResult(alive[0], Reason.ALL_CARDS, n, counts, loser=loser, has_loser=True)
            return WarResult(None, Reason.BROKE, n, counts, loser=loser, has_loser=True)
        if len(alive) == 1:
            return WarResult(alive[0], Reason.ALL_CARDS, n, counts, has_loser=True)
        return WarResult(None, Reason.BROKE, n, counts, has_loser=True)
    if len(alive) == 1:
        holder = alive[0]
        other = 1 - holder if two_seats else None
        return WarResult(other, Reason.ALL_CARDS, n, counts, loser=holder, has_loser=True)
    return None
