"""The odds module's speed: the exact-odds computation per table (uncached), and War games per
second on the reference engine and on the compiled bulk path, side by side with the ratio.

    python benchmarks/odds.py [--games 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from casino.engine.fairness import HmacStream
from casino.engine.war import build_rules, play_dealt, seeded_deal
from casino.odds.bulk import play_many, supports
from casino.odds.casino_war import casino_war_odds
from casino.odds.validation import seed_bytes

CASES = (("standard", {}), ("classic", {}), ("one_down", {}), ("standard", {"gather": "winner"}), ("pyanitsa", {}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games on the reference engine (x10 on the bulk path)")
    args = parser.parse_args()
    exact = {}
    for decks in (1, 6, 8):
        for bonus in (False, True):
            casino_war_odds.cache_clear()
            started = time.perf_counter()
            casino_war_odds(decks, 10, bonus)
            exact[f"{decks}_decks{'_bonus' if bonus else ''}"] = round((time.perf_counter() - started) * 1e6, 1)
    simulation = {}
    key = seed_bytes("bench")
    for preset, options in CASES:
        rules = build_rules(preset, options)
        deals = [seeded_deal(rules, HmacStream(key, "deal", n)) for n in range(args.games)]
        started = time.perf_counter()
        battles = 0
        for n, deal in enumerate(deals):
            battles += play_dealt(rules, deal, HmacStream(key, "play", n), record_events=False).result.battles
        reference = args.games / (time.perf_counter() - started)
        row = {"mean_battles": round(battles / args.games, 1), "reference_engine_games_per_s": round(reference, 1)}
        if supports(rules):
            many = [seeded_deal(rules, HmacStream(key, "deal", n)) for n in range(args.games * 10)]
            play_many(rules, many[:2])  # compile before timing
            started = time.perf_counter()
            play_many(rules, many)
            bulk = len(many) / (time.perf_counter() - started)
            row |= {"bulk_path_games_per_s": round(bulk, 1), "bulk_vs_reference": round(bulk / reference, 1)}
        simulation[preset + (f" {json.dumps(options)}" if options else "")] = row
    print(json.dumps({"exact_odds_microseconds_per_table": exact, "war_games": simulation}, indent=2))


if __name__ == "__main__":
    main()
