"""Play many Casino War rounds through the engine and compare the measured return of each bet
with the exact figure of `casino_war.py`. Chance comes from the provably fair stream of a seed."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from casino.engine import Action, CasinoWarRules, FreshShoe, HmacStream, play_round
from casino.odds.casino_war import casino_war_odds
from casino.odds.stats import Estimate, mean

BET = 100


@dataclass(frozen=True)
class BetCheck:
    name: str
    exact_rtp: float
    measured: Estimate

    @property
    def within(self) -> bool:
        return self.measured.contains(self.exact_rtp)

    def as_json(self) -> dict:
        return {
            "exact_rtp": round(self.exact_rtp, 9),
            "measured_rtp": self.measured.as_json(),
            "within_ci95": self.within,
        }


def seed_bytes(seed: str) -> bytes:
    """A server seed for simulations, derived from any text so that runs are reproducible."""
    return hashlib.sha256(seed.encode()).digest()


def validate(
    *,
    rounds: int,
    seed: str = "validation",
    decks: int = 6,
    tie_pays: int = 10,
    bonus: bool = False,
    progress: Iterable[int] | None = None,
) -> list[BetCheck]:
    """Three bets per round: the main bet played to war, the main bet surrendered, and the tie bet
    (each round deals once; the two main-bet strategies see the same first cards)."""
    rules = CasinoWarRules(decks=decks, tie_pays=tie_pays, tie_after_tie_bonus=bonus, burn=3)
    key = seed_bytes(seed)
    sums = {"war": [0.0, 0.0], "surrender": [0.0, 0.0], "tie_bet": [0.0, 0.0]}
    for nonce in progress if progress is not None else range(rounds):
        war = play_round(rules=rules, main=BET, tie=BET, cards=FreshShoe(decks, HmacStream(key, "war", nonce)))
        surrender = play_round(
            rules=rules, main=BET, cards=FreshShoe(decks, HmacStream(key, "war", nonce)), decision=Action.SURRENDER
        )
        for name, net in (
            ("war", war.nets.total - war.nets.tie),
            ("surrender", surrender.nets.total),
            ("tie_bet", war.nets.tie),
        ):
            r = net / BET
            sums[name][0] += r
            sums[name][1] += r * r
    odds = casino_war_odds(decks, tie_pays, bonus)
    exact = {"war": odds.rtp_war, "surrender": odds.rtp_surrender, "tie_bet": odds.rtp_tie_bet}
    checks = []
    for name, (total, squares) in sums.items():
        net = mean(total, squares, rounds)
        checks.append(BetCheck(name, float(exact[name]), Estimate(1 + net.value, 1 + net.low, 1 + net.high)))
    return checks
