"""The bulk simulation path: whole War games in compiled code (numba), for statistics.

It plays the common model of RULES.md section 4 (the `classic`, `standard`, `one_down`,
`multiplayer`, `three_player` and `peace` presets, with or without jokers, `gather = seat` or
`winner`) and gives, deal for deal, the same result as the reference engine (tests check it on
thousands of deals). Why numba: a War game is a long sequential loop over tiny integer arrays,
which vectorising across games with numpy handles badly (games end at very different times), while
a JIT-compiled loop over ring buffers runs at native speed without a C toolchain in the build.

Cycles (section 8) are found with Brent's algorithm: one saved position compared with the current
one, instead of hashing and storing every position; a game that does cycle is replayed once to find
the exact battle of the first repetition, so `battles` matches the reference.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from casino.engine.cards import ALL_CARDS
from casino.engine.war.rules import Family, Gather, OnLimit, OutOfCards, Participants, WarRules

CAP = 64  # ring buffer per seat; a seat never holds more than 54 cards
MASK = CAP - 1
RANKS = np.array([c.rank for c in ALL_CARDS], dtype=np.int8)
REASONS = ("all_cards", "limit_count", "limit_draw", "stuck_draw", "short_draw", "cycle")
ALL_CARDS_, LIMIT_COUNT, LIMIT_DRAW, STUCK_DRAW, SHORT_DRAW, CYCLE = range(6)


@njit(cache=True, inline="always")
def _pop(buf, head, size, s):
    c = buf[s, head[s]]
    head[s] = (head[s] + 1) & MASK
    size[s] -= 1
    return c


@njit(cache=True, inline="always")
def _push(buf, head, size, s, c):
    buf[s, (head[s] + size[s]) & MASK] = c
    size[s] += 1


@njit(cache=True, inline="always")
def _best(face, seats, n, ranks, lowest, out):
    target = ranks[face[seats[0]]]
    for i in range(1, n):
        r = ranks[face[seats[i]]]
        if (r < target) if lowest else (r > target):
            target = r
    k = 0
    for i in range(n):
        if ranks[face[seats[i]]] == target:
            out[k] = seats[i]
            k += 1
    return k


@njit(cache=True, inline="always")
def _lay(buf, head, size, trick, tlen, face, s, count):
    for _ in range(count):
        c = _pop(buf, head, size, s)
        trick[s, tlen[s]] = c
        tlen[s] += 1
        face[s] = c


@njit(cache=True, inline="always")
def _drop(buf, head, size, trick, tlen, s, in_war, niw):
    while size[s] > 0:
        trick[s, tlen[s]] = _pop(buf, head, size, s)
        tlen[s] += 1
    k = 0
    for i in range(niw):
        if in_war[i] != s:
            in_war[k] = in_war[i]
            k += 1
    return k


@njit(cache=True)
def _battle(buf, head, size, n_seats, ranks, down, tied_only, lose_rule, gather_winner, lowest, work):
    """One battle, in place. Returns (status, winner, war_steps): status 0 = a seat took the trick,
    STUCK_DRAW or SHORT_DRAW = the game ended drawn during the battle."""
    trick, tlen, face, alive, in_war, parts, best = work
    need = down + 1
    nalive = 0
    for s in range(n_seats):
        tlen[s] = 0
        if size[s] > 0:
            alive[nalive] = s
            nalive += 1
    for i in range(nalive):
        s = alive[i]
        _lay(buf, head, size, trick, tlen, face, s, 1)
        in_war[i] = s
    niw = nalive
    nbest = _best(face, alive, nalive, ranks, lowest, best)
    war_steps = 0
    winner = best[0] if nbest == 1 else -1
    while winner < 0:
        war_steps += 1
        if tied_only:
            npart = nbest
            for i in range(nbest):
                parts[i] = best[i]
        else:
            npart = niw
            for i in range(niw):
                parts[i] = in_war[i]
        if lose_rule:
            nshort = 0
            for i in range(npart):
                if size[parts[i]] < need:
                    nshort += 1
            if nshort > 0:
                if nshort == npart:
                    most = -1
                    holders = 0
                    holder = -1
                    for i in range(npart):
                        sz = size[parts[i]]
                        if sz > most:
                            most, holders, holder = sz, 1, parts[i]
                        elif sz == most:
                            holders += 1
                    if holders > 1:
                        return SHORT_DRAW, -1, war_steps
                    for i in range(npart):
                        if parts[i] != holder:
                            niw = _drop(buf, head, size, trick, tlen, parts[i], in_war, niw)
                    winner = holder
                    break
                k = 0
                for i in range(npart):
                    s = parts[i]
                    if size[s] < need:
                        niw = _drop(buf, head, size, trick, tlen, s, in_war, niw)
                    else:
                        parts[k] = s
                        k += 1
                npart = k
                if npart == 1:
                    winner = parts[0]
                    break
            for i in range(npart):
                _lay(buf, head, size, trick, tlen, face, parts[i], need)
        else:
            stuck = True
            for i in range(npart):
                if size[parts[i]] > 0:
                    stuck = False
            if stuck:
                return STUCK_DRAW, -1, war_steps
            for i in range(npart):
                s = parts[i]
                k = size[s]
                if k > 0:
                    _lay(buf, head, size, trick, tlen, face, s, need if k >= need else k)
        nbest = _best(face, parts, npart, ranks, lowest, best)
        if nbest == 1:
            winner = best[0]
    if gather_winner:
        for j in range(tlen[winner]):
            _push(buf, head, size, winner, trick[winner, j])
        for s in range(n_seats):
            if s != winner:
                for j in range(tlen[s]):
                    _push(buf, head, size, winner, trick[s, j])
    else:
        for s in range(n_seats):
            for j in range(tlen[s]):
                _push(buf, head, size, winner, trick[s, j])
    return 0, winner, war_steps


@njit(cache=True, inline="always")
def _same(buf, head, size, tbuf, thead, tsize, n_seats):
    for s in range(n_seats):
        if size[s] != tsize[s]:
            return False
    for s in range(n_seats):
        for i in range(size[s]):
            if buf[s, (head[s] + i) & MASK] != tbuf[s, (thead[s] + i) & MASK]:
                return False
    return True


@njit(cache=True, inline="always")
def _load(deal, deal_len, n_seats, buf, head, size):
    for s in range(n_seats):
        head[s] = 0
        size[s] = deal_len[s]
        for i in range(deal_len[s]):
            buf[s, i] = deal[s, i]


@njit(cache=True, inline="always")
def _copy(buf, head, size, tbuf, thead, tsize, n_seats):
    for s in range(n_seats):
        thead[s] = head[s]
        tsize[s] = size[s]
        for i in range(size[s]):
            tbuf[s, (head[s] + i) & MASK] = buf[s, (head[s] + i) & MASK]


@njit(cache=True)
def _play(
    deal,
    deal_len,
    n_seats,
    ranks,
    down,
    tied_only,
    lose_rule,
    gather_winner,
    lowest,
    max_battles,
    count_on_limit,
    detect_cycles,
    work,
    out,
):
    """Play one game; `out` = [winner, reason, battles, wars, double_wars, count0..count3]."""
    buf = np.zeros((4, CAP), np.int16)
    head = np.zeros(4, np.int32)
    size = np.zeros(4, np.int32)
    _load(deal, deal_len, n_seats, buf, head, size)
    for s in range(4):
        out[5 + s] = 0
    nalive = 0
    last = -1
    for s in range(n_seats):
        if size[s] > 0:
            nalive += 1
            last = s
    if nalive <= 1:
        out[0], out[1], out[2], out[3], out[4] = last, ALL_CARDS_ if nalive == 1 else SHORT_DRAW, 0, 0, 0
        for s in range(n_seats):
            out[5 + s] = size[s]
        return
    tbuf = np.zeros((4, CAP), np.int16)
    thead = np.zeros(4, np.int32)
    tsize = np.zeros(4, np.int32)
    _copy(buf, head, size, tbuf, thead, tsize, n_seats)
    power = 1
    lam = 1
    n = 0
    wars = 0
    doubles = 0
    while True:
        n += 1
        status, _winner, steps = _battle(
            buf, head, size, n_seats, ranks, down, tied_only, lose_rule, gather_winner, lowest, work
        )
        if steps >= 1:
            wars += 1
        if steps >= 2:
            doubles += 1
        if status != 0:
            out[0], out[1], out[2], out[3], out[4] = -1, status, n, wars, doubles
            for s in range(n_seats):
                out[5 + s] = size[s]
            return
        nalive = 0
        for s in range(n_seats):
            if size[s] > 0:
                nalive += 1
                last = s
        if nalive == 1:
            out[0], out[1], out[2], out[3], out[4] = last, ALL_CARDS_, n, wars, doubles
            for s in range(n_seats):
                out[5 + s] = size[s]
            return
        if max_battles > 0 and n >= max_battles:
            top = -1
            holders = 0
            who = -1
            for s in range(n_seats):
                if size[s] > top:
                    top, holders, who = size[s], 1, s
                elif size[s] == top:
                    holders += 1
            if count_on_limit:
                out[0], out[1] = (who if holders == 1 else -1), LIMIT_COUNT
            else:
                out[0], out[1] = -1, LIMIT_DRAW
            out[2], out[3], out[4] = n, wars, doubles
            for s in range(n_seats):
                out[5 + s] = size[s]
            return
        if detect_cycles:
            if _same(buf, head, size, tbuf, thead, tsize, n_seats):
                break
            if power == lam:
                _copy(buf, head, size, tbuf, thead, tsize, n_seats)
                power *= 2
                lam = 0
            lam += 1
    # A cycle of length lam: replay from the deal to find the first repeated position.
    _load(deal, deal_len, n_seats, tbuf, thead, tsize)  # the tortoise, at the deal
    _load(deal, deal_len, n_seats, buf, head, size)  # the hare, lam battles ahead
    wars = 0
    doubles = 0
    for _ in range(lam):
        _status, _winner, steps = _battle(
            buf, head, size, n_seats, ranks, down, tied_only, lose_rule, gather_winner, lowest, work
        )
        wars += steps >= 1
        doubles += steps >= 2
    mu = 0
    while not _same(buf, head, size, tbuf, thead, tsize, n_seats):
        _battle(tbuf, thead, tsize, n_seats, ranks, down, tied_only, lose_rule, gather_winner, lowest, work)
        _status, _winner, steps = _battle(
            buf, head, size, n_seats, ranks, down, tied_only, lose_rule, gather_winner, lowest, work
        )
        wars += steps >= 1
        doubles += steps >= 2
        mu += 1
    out[0], out[1], out[2], out[3], out[4] = -1, CYCLE, mu + lam, wars, doubles
    for s in range(n_seats):
        out[5 + s] = size[s]


@njit(cache=True)
def _play_many(
    deals,
    deal_lens,
    n_seats,
    ranks,
    down,
    tied_only,
    lose_rule,
    gather_winner,
    lowest,
    max_battles,
    count_on_limit,
    detect_cycles,
):
    games = deals.shape[0]
    results = np.zeros((games, 9), np.int64)
    work = (
        np.zeros((4, CAP), np.int16),
        np.zeros(4, np.int32),
        np.zeros(4, np.int16),
        np.zeros(4, np.int32),
        np.zeros(4, np.int32),
        np.zeros(4, np.int32),
        np.zeros(4, np.int32),
    )
    out = np.zeros(9, np.int64)
    for g in range(games):
        _play(
            deals[g],
            deal_lens[g],
            n_seats,
            ranks,
            down,
            tied_only,
            lose_rule,
            gather_winner,
            lowest,
            max_battles,
            count_on_limit,
            detect_cycles,
            work,
            out,
        )
        results[g, :] = out
    return results


def supports(rules: WarRules) -> bool:
    return rules.family is Family.COMMON and rules.gather in (Gather.SEAT, Gather.WINNER)


def play_many(rules: WarRules, deals: list[list[list[int]]]) -> np.ndarray:
    """Play every deal (lists of card ids per seat); one row per game:
    winner (-1: none), reason (index into REASONS), battles, wars, double wars, counts per seat."""
    if not supports(rules):
        raise ValueError(f"the bulk path plays the common model with seat or winner gathering, not {rules.preset}")
    n_seats = rules.seats
    array = np.zeros((len(deals), 4, CAP), np.int16)
    lens = np.zeros((len(deals), 4), np.int32)
    for g, deal in enumerate(deals):
        for s, stock in enumerate(deal):
            array[g, s, : len(stock)] = stock
            lens[g, s] = len(stock)
    return _play_many(
        array,
        lens,
        n_seats,
        RANKS,
        rules.down,
        rules.war_participants is Participants.TIED,
        rules.out_of_cards is OutOfCards.LOSE,
        rules.gather is Gather.WINNER,
        rules.lowest_wins,
        rules.max_battles or 0,
        rules.on_limit is OnLimit.COUNT,
        rules.detects_cycles,
    )
