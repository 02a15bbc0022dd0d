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


def _progress(total: int, label: str, quiet: bool):
    """A progress bar on standard error for long runs (silent with --quiet or when not a terminal)."""
    from tqdm import tqdm

    return tqdm(
        range(total),
        desc=label,
        unit=" games" if "war" in label else " rounds",
        file=sys.stderr,
        disable=quiet or not sys.stderr.isatty(),
        mininterval=0.5,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m casino.odds")
    parser.add_argument("job", choices=["house-edge", "validate", "war-stats", "war-report"])
    parser.add_argument(
        "--exact", action="store_true", help="house-edge: also print the exact fractions and more figures"
    )
    parser.add_argument("--rounds", type=int, default=1_000_000, help="validate: rounds to play")
    parser.add_argument("--games", type=int, default=1_000, help="war-stats / war-report: games per variant")
    parser.add_argument("--seed", default="casino-war", help="any text: the same seed gives the same figures")
    parser.add_argument("--preset", default="standard", help="war-stats: the preset")
    parser.add_argument("--options", default="{}", help="war-stats: options as JSON")
    parser.add_argument("--svg", help="war-stats: write the game-length chart to this file")
    parser.add_argument("--out", default="docs", help="war-report: folder for WAR_STATISTICS.md and charts/")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--bulk", action="store_true", help="war-stats: the compiled bulk path (needs numba)")
    args = parser.parse_args(argv)
    if args.job == "validate":
        from casino.odds.validation import validate

        checks = validate(rounds=args.rounds, seed=args.seed, progress=_progress(args.rounds, "validate", args.quiet))
        print(
            json.dumps(
                {"rounds": args.rounds, "seed": args.seed, "bets": {c.name: c.as_json() for c in checks}}, indent=2
            )
        )
        return 0 if all(c.within for c in checks) else 2
    if args.job == "war-stats":
        from casino.odds.war_stats import length_histogram_svg, simulate

        stats = simulate(
            args.preset,
            json.loads(args.options),
            games=args.games,
            seed=args.seed,
            bulk=args.bulk,
            progress=_progress(args.games, f"war-stats {args.preset}", args.quiet),
        )
        if args.svg:
            with open(args.svg, "w") as handle:
                handle.write(length_histogram_svg(stats))
        print(json.dumps(stats.as_json(), indent=2))
        return 0
    if args.job == "war-report":
        from casino.odds.report import write_report

        print(write_report(out=args.out, games=args.games, seed=args.seed, quiet=args.quiet))
        return 0
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
