"""Exact Casino War odds (fractions) and War variant statistics. Plain Python, no framework."""

from casino.odds.casino_war import CasinoWarOdds, casino_war_odds, decision_values

__all__ = ["CasinoWarOdds", "casino_war_odds", "decision_values"]
