"""Exact Casino War probabilities and house edges with `fractions.Fraction`.

The burned cards do not change the odds: they are unseen cards drawn from the same shoe, so the
war cards are, by symmetry, two random cards of the shoe left after the tied pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import sqrt

RANKS = range(2, 15)


@dataclass(frozen=True)
class WarCardOdds:
    win: Fraction  # player's war card higher
    tie: Fraction  # equal (the main bet pushes, the raise wins; the bonus pays if on)
    lose: Fraction


@dataclass(frozen=True)
class CasinoWarOdds:
    decks: int
    tie_pays: int
    tie_after_tie_bonus: bool
    p_win: Fraction
    p_lose: Fraction
    p_tie: Fraction
    war: WarCardOdds
    ev_go_to_war: Fraction  # per unit of the main bet, once a tie has happened
    ev_surrender_after_tie: Fraction
    house_edge_war: Fraction  # per unit of the main bet, always going to war
    house_edge_surrender: Fraction  # per unit of the main bet, always surrendering
    house_edge_tie_bet: Fraction  # per unit of the tie bet
    element_of_risk_war: Fraction  # house edge per unit of the average total amount bet
    variance_war: Fraction  # of one round's net per unit of main bet, always going to war

    @property
    def std_dev_war(self) -> float:
        return sqrt(self.variance_war)

    @property
    def rtp_war(self) -> Fraction:
        return 1 - self.house_edge_war

    @property
    def rtp_surrender(self) -> Fraction:
        return 1 - self.house_edge_surrender

    @property
    def rtp_tie_bet(self) -> Fraction:
        return 1 - self.house_edge_tie_bet

    def as_json(self) -> dict[str, float]:
        return {
            "war": float(self.house_edge_war),
            "surrender": float(self.house_edge_surrender),
            "tie_bet": float(self.house_edge_tie_bet),
        }


def war_card_odds(counts: Mapping[int, int]) -> WarCardOdds:
    """Odds of the two war cards drawn from a shoe holding `counts[rank]` cards of each rank."""
    total = sum(counts.values())
    if total < 2:
        raise ValueError("the shoe needs at least two cards for a war")
    pairs = total * (total - 1)
    tie = Fraction(sum(n * (n - 1) for n in counts.values()), pairs)
    ranks = sorted(counts)
    below = 0
    win_pairs = 0
    for rank in ranks:
        win_pairs += counts[rank] * below  # the player's card of this rank over every lower card
        below += counts[rank]
    win = Fraction(win_pairs, pairs)
    return WarCardOdds(win=win, tie=tie, lose=1 - win - tie)


def decision_values(counts: Mapping[int, int], *, tie_after_tie_bonus: bool = False) -> dict[str, Fraction]:
    """The expected net, per unit of the main bet, of each decision on a tie, for the shoe left
    after the tied pair (the persistent-shoe tables show this to the player)."""
    war = war_card_odds(counts)
    bonus = 1 if tie_after_tie_bonus else 0
    return {"war": war.win + war.tie * (1 + bonus) - 2 * war.lose, "surrender": Fraction(-1, 2)}


@lru_cache(maxsize=256)
def casino_war_odds(decks: int = 6, tie_pays: int = 10, tie_after_tie_bonus: bool = False) -> CasinoWarOdds:
    if not 1 <= decks <= 8:
        raise ValueError("decks must be from 1 to 8")
    if not 1 <= tie_pays <= 30:
        raise ValueError("tie_pays must be from 1 to 30")
    per_rank = 4 * decks
    cards = 52 * decks
    p_tie = Fraction(per_rank - 1, cards - 1)
    p_win = p_lose = (1 - p_tie) / 2
    # After a tie the shoe lacks two cards of the tied rank; every rank is alike, so take the 2s.
    after_tie = {rank: per_rank for rank in RANKS} | {2: per_rank - 2}
    war = war_card_odds(after_tie)
    values = decision_values(after_tie, tie_after_tie_bonus=tie_after_tie_bonus)
    ev_war = values["war"]
    bonus = 1 if tie_after_tie_bonus else 0
    edge_war = -(p_win - p_lose + p_tie * ev_war)
    edge_surrender = -(p_win - p_lose + p_tie * Fraction(-1, 2))
    edge_tie_bet = -(p_tie * tie_pays - (1 - p_tie))
    second_moment = p_win + p_lose + p_tie * (war.win + war.tie * (1 + bonus) ** 2 + war.lose * 4)
    return CasinoWarOdds(
        decks=decks,
        tie_pays=tie_pays,
        tie_after_tie_bonus=tie_after_tie_bonus,
        p_win=p_win,
        p_lose=p_lose,
        p_tie=p_tie,
        war=war,
        ev_go_to_war=ev_war,
        ev_surrender_after_tie=Fraction(-1, 2),
        house_edge_war=edge_war,
        house_edge_surrender=edge_surrender,
        house_edge_tie_bet=edge_tie_bet,
        element_of_risk_war=edge_war / (1 + p_tie),
        variance_war=second_moment - edge_war**2,
    )
