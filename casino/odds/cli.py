"""`python -m casino.odds house-edge`: reads {"decks", "tie_after_tie_bonus", "tie_pays"} and
prints the house edge of each way to play, as a fraction of the bet (RULES.md section 7)."""

from __future__ import annotations

import argparse
import json
import sys

from casino.odds.casino_war import casino_war_odds


def _int(data, key, default):
    value = data.get(key, default)
    if type(value) is not int:
        raise ValueError(f"'{key}' must be an integer")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m casino.odds")
    parser.add_argument("job", choices=["house-edge"])
    parser.add_argument("--exact", action="store_true", help="also print the exact fractions and more figures")
    args = parser.parse_args(argv)
    try:
        try:
            data = json.loads(sys.stdin.read() or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"the input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("the input is one JSON object")
        bonus = data.get("tie_after_tie_bonus", False)
        if not isinstance(bonus, bool):
            raise ValueError("'tie_after_tie_bonus' must be true or false")
        odds = casino_war_odds(_int(data, "decks", 6), _int(data, "tie_pays", 10), bonus)
    except ValueError as exc:
        print(json.dumps({"error": str(exc)}))
        return 1
    output: dict[str, object] = odds.as_json()
    if args.exact:
        output["exact"] = {
            "war": str(odds.house_edge_war),
            "surrender": str(odds.house_edge_surrender),
            "tie_bet": str(odds.house_edge_tie_bet),
            "p_tie": str(odds.p_tie),
            "element_of_risk_war": float(odds.element_of_risk_war),
            "std_dev_war": odds.std_dev_war,
        }
    print(json.dumps(output))
    return 0
