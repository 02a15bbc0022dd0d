"""The odds module's speed: the exact-odds computation per table (uncached), and War variant
simulation through the reference engine in games per second. Prints JSON.

    python benchmarks/odds.py [--games 300]
"""

from __future__ import annotations

import argparse
import json
import time

from casino.odds.casino_war import casino_war_odds
from casino.odds.war_stats import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    exact = {}
    for decks in (1, 6, 8):
        for bonus in (False, True):
            casino_war_odds.cache_clear()
            started = time.perf_counter()
            casino_war_odds(decks, 10, bonus)
            exact[f"{decks}_decks{'_bonus' if bonus else ''}"] = round((time.perf_counter() - started) * 1e6, 1)
    simulation = {}
    for preset, options in (
        ("standard", {}),
        ("classic", {}),
        ("one_down", {}),
        ("pyanitsa", {}),
        ("tod_und_leben", {}),
    ):
        started = time.perf_counter()
        stats = simulate(preset, options, games=args.games, seed="bench")
        elapsed = time.perf_counter() - started
        simulation[preset] = {
            "reference_engine_games_per_s": round(args.games / elapsed, 1),
            "battles_per_s": round(sum(stats.lengths) / elapsed),
            "bulk_path_games_per_s": None,  # not built yet: see docs/BENCHMARKS.md
        }
    print(json.dumps({"exact_odds_microseconds_per_table": exact, "simulation": simulation}, indent=2))


if __name__ == "__main__":
    main()
