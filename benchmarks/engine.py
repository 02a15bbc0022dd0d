"""Engine speed on one core: Casino War rounds (provably fair draws included) and whole War
games per second, beside a plain CPython War loop on the *same* deals and rules (the baseline the
engine's richer model is measured against). Prints figures (best of --repeat); asserts nothing.

    python benchmarks/engine.py [--rounds N] [--games N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from casino.engine import CasinoWarRules, FreshShoe, HmacStream, play_round
from casino.engine.fairness import parse_server_seed
from casino.engine.war import build_rules, play_dealt, seeded_deal
from casino.engine.war.common import RANK

SEED = parse_server_seed("42" * 32)


def best_of(repeat: int, work) -> tuple[float, float]:
    rates = [work() for _ in range(repeat)]
    return max(rates), statistics.median(rates)


def casino_war_rate(rounds: int) -> float:
    rules = CasinoWarRules()
    start = time.perf_counter()
    for nonce in range(rounds):
        play_round(rules=rules, main=1000, tie=100, cards=FreshShoe(6, HmacStream(SEED, "bench", nonce)))
    return rounds / (time.perf_counter() - start)


def plain_war_loop(deal: list[list[int]], down: int) -> int:
    """The shortest honest loop for two-seat War under the same rules: last_card, seat-order
    gathering, cycle detection. Returns the number of battles."""
    a, b = deque(deal[0]), deque(deal[1])
    seen = {(tuple(a), tuple(b))}
    battles = 0
    while a and b:
        battles += 1
        table_a, table_b = [a.popleft()], [b.popleft()]
        ca, cb = table_a[-1], table_b[-1]
        while RANK[ca] == RANK[cb]:
            if not a and not b:
                return battles
            for stock, table in ((a, table_a), (b, table_b)):
                k = min(len(stock), down + 1)
                table.extend(stock.popleft() for _ in range(k))
            ca, cb = table_a[-1], table_b[-1]
        (a if RANK[ca] > RANK[cb] else b).extend(table_a + table_b)
        state = (tuple(a), tuple(b))
        if state in seen:
            return battles
        seen.add(state)
    return battles


def deals(preset: str, games: int):
    rules = build_rules(preset)
    out = []
    for nonce in range(games):
        stream = HmacStream(SEED, "bench", nonce)
        out.append((seeded_deal(rules, stream), stream))
    return rules, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    best, median = best_of(args.repeat, lambda: casino_war_rate(args.rounds))
    figures: dict[str, object] = {"casino_war_rounds_per_s": {"best": round(best), "median": round(median)}}
    for preset in ("standard", "classic"):
        rules, games = deals(preset, args.games)
        battles = sum(play_dealt(rules, d, s, record_events=False).result.battles for d, s in games)

        def engine_rate(rules=rules, games=games):
            start = time.perf_counter()
            for deal, stream in games:
                play_dealt(rules, deal, stream, record_events=False)
            return len(games) / (time.perf_counter() - start)

        def plain_rate(rules=rules, games=games):
            start = time.perf_counter()
            for deal, _ in games:
                plain_war_loop(deal, rules.down)
            return len(games) / (time.perf_counter() - start)

        engine_best, _ = best_of(args.repeat, engine_rate)
        plain_best, _ = best_of(args.repeat, plain_rate)
        mean_battles = battles / len(games)
        figures[preset] = {
            "mean_battles_per_game": round(mean_battles, 1),
            "engine_games_per_s": round(engine_best, 1),
            "engine_battles_per_s": round(engine_best * mean_battles),
            "plain_loop_games_per_s": round(plain_best, 1),
            "engine_vs_plain_loop": round(engine_best / plain_best, 3),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
