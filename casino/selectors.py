"""Reads of the casino app."""

from __future__ import annotations

from casino.models import Table
from casino.odds import casino_war_odds


def table_list_open():
    return Table.objects.filter(is_open=True).order_by("name")


def table_house_edge(*, table: Table) -> dict[str, float]:
    """The exact house edges of the table's rules, from the odds module."""
    return casino_war_odds(table.decks, table.tie_pays, table.tie_after_tie_bonus).as_json()
