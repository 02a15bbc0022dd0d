"""The engine on the command line (RULES.md section 7): JSON on standard input, JSON out.

    python -m casino.engine war          {"preset", "options", "deal" | "seed", ...}
    python -m casino.engine casino-war   {"rules", "shoe", "main", "tie", "decision"}
    python -m casino.engine shuffle      {"server_seed", "client_seed", "nonce", "decks", "cards"}
    python -m casino.engine verify       {"server_seed", "server_seed_hash", "client_seed", "nonce", "decks", "burn"}

A refused input prints {"error": "<why>"} on standard output and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from casino.engine.cards import card
from casino.engine.casino_war import CasinoWarRules, StackedShoe, play_round
from casino.engine.errors import EngineError
from casino.engine.verify import shoe_cards, verify_round
from casino.engine.war import play_war


class InputError(EngineError):
    pass


def _int(data: dict, key: str, default: int | None = None, *, minimum: int = 0) -> int:
    value = data.get(key, default)
    if value is None:
        raise InputError(f"'{key}' is required")
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InputError(f"'{key}' must be an integer >= {minimum}")
    return value


def _str(data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise InputError(f"'{key}' must be a string")
    return value


def run_war(data: dict[str, Any], *, events: bool = False) -> dict[str, Any]:
    preset = data.get("preset")
    if not isinstance(preset, str):
        raise InputError("'preset' is required (a preset name such as \"standard\")")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise InputError("'options' must be an object")
    seed = data.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise InputError("'seed' is a 64-hex server seed")
    game = play_war(
        preset,
        options,
        deal=data.get("deal"),
        seed=seed,
        client_seed=_str(data, "client_seed", ""),
        nonce=_int(data, "nonce", 0),
        record_events=events,
    )
    return game.as_json(events=events)


CASINO_WAR_RULE_KEYS = {"burn", "tie_pays", "tie_after_tie_bonus", "decks"}


def run_casino_war(data: dict[str, Any]) -> dict[str, Any]:
    raw_rules = data.get("rules", {})
    if not isinstance(raw_rules, dict):
        raise InputError("'rules' must be an object")
    unknown = set(raw_rules) - CASINO_WAR_RULE_KEYS
    if unknown:
        raise InputError(f"unknown rules keys: {', '.join(sorted(unknown))}")
    rules = CasinoWarRules(
        decks=raw_rules.get("decks", 6),
        burn=raw_rules.get("burn", 3),
        tie_pays=raw_rules.get("tie_pays", 10),
        tie_after_tie_bonus=raw_rules.get("tie_after_tie_bonus", False),
    )
    shoe = data.get("shoe")
    if not isinstance(shoe, list):
        raise InputError("'shoe' is the list of cards in the order they come off the shoe")
    main = _int(data, "main", minimum=1)
    tie = _int(data, "tie", 0)
    decision = data.get("decision")
    if decision is not None and decision not in ("war", "surrender"):
        raise InputError('\'decision\' is "war" or "surrender"')
    state = play_round(rules=rules, main=main, tie=tie, cards=StackedShoe([card(c) for c in shoe]), decision=decision)
    war = None
    if state.player_war_card is not None:
        war = {"player": state.player_war_card.code, "dealer": state.dealer_war_card.code}
    return {
        "player": state.player_card.code,
        "dealer": state.dealer_card.code,
        "war": war,
        "net": state.nets.as_dict(),
        "total": state.nets.total,
    }


def run_shuffle(data: dict[str, Any]) -> dict[str, Any]:
    cards = data.get("cards")
    if cards is not None:
        cards = _int(data, "cards")
    dealt = shoe_cards(
        server_seed=_str(data, "server_seed"),
        client_seed=_str(data, "client_seed", ""),
        nonce=_int(data, "nonce", 0),
        decks=_int(data, "decks", 6, minimum=1),
        cards=cards,
    )
    return {"cards": [c.code for c in dealt]}


def run_verify(data: dict[str, Any]) -> dict[str, Any]:
    published = data.get("server_seed_hash")
    result = verify_round(
        server_seed=_str(data, "server_seed"),
        client_seed=_str(data, "client_seed", ""),
        nonce=_int(data, "nonce", 0),
        decks=_int(data, "decks", 6, minimum=1),
        burn=_int(data, "burn", 3),
        published_hash=published if isinstance(published, str) else None,
    )
    cards = result.cards
    return {
        "server_seed_hash": result.server_seed_hash,
        "hash_matches": result.hash_matches,
        "player": cards.player.code,
        "dealer": cards.dealer.code,
        "burned": [c.code for c in cards.burned],
        "war": {"player": cards.player_war.code, "dealer": cards.dealer_war.code},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m casino.engine", description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=["war", "casino-war", "shuffle", "verify"])
    parser.add_argument("--events", action="store_true", help="war: add the full event log of the game")
    parser.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    args = parser.parse_args(argv)
    try:
        try:
            data = json.loads(sys.stdin.read())
        except json.JSONDecodeError as exc:
            raise InputError(f"the input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise InputError("the input is one JSON object")
        if args.job == "war":
            output = run_war(data, events=args.events)
        elif args.job == "casino-war":
            output = run_casino_war(data)
        elif args.job == "shuffle":
            output = run_shuffle(data)
        else:
            output = run_verify(data)
    except EngineError as exc:
        print(json.dumps({"error": str(exc)}))
        return 1
    print(json.dumps(output, indent=args.indent))
    return 0
