"""Reads for the back office's reports: gross gaming revenue and observed return to player.

GGR = stakes - payouts of the rounds whose outcome is known (resolved or settled), in minor units,
never mixing currencies. Observed RTP per table and bet beside the exact figure of the odds module,
with a 95 % interval from the per-round returns.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date, datetime, time, timedelta

from django.db.models import Count, F, Sum
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from casino.models import Round, RoundStatus, Table
from casino.odds import casino_war_odds
from casino.odds.stats import Z95

GROUPS = {
    "day": TruncDate("created_at"),
    "table": F("table__name"),
    "partner": F("player__partner__name"),
    "currency": F("currency"),
}


def _decided(start: date | None, end: date | None):
    rounds = Round.objects.exclude(status=RoundStatus.AWAITING_DECISION)
    if start:
        rounds = rounds.filter(created_at__gte=timezone.make_aware(datetime.combine(start, time.min)))
    if end:
        rounds = rounds.filter(created_at__lt=timezone.make_aware(datetime.combine(end + timedelta(days=1), time.min)))
    return rounds


def ggr_report(*, by: str, start: date | None = None, end: date | None = None) -> list[dict]:
    """One row per group and currency: rounds, staked, paid out, GGR."""
    if by not in GROUPS:
        raise ValueError(f"group by one of {', '.join(GROUPS)}")
    rows = (
        _decided(start, end)
        .annotate(group=GROUPS[by])
        .values("group", "currency")
        .annotate(
            rounds=Count("id"),
            staked=Coalesce(Sum(F("main_bet") + F("tie_bet") + F("raise_bet")), 0),
            paid=Coalesce(Sum("payout"), 0),
        )
        .order_by("group", "currency")
    )
    return [
        {
            by: str(row["group"]) if row["group"] is not None else ("(own players)" if by == "partner" else "-"),
            "currency": row["currency"],
            "rounds": row["rounds"],
            "staked": row["staked"],
            "paid_out": row["paid"],
            "ggr": row["staked"] - row["paid"],
        }
        for row in rows
    ]


def rtp_report(*, start: date | None = None, end: date | None = None) -> list[dict]:
    """Per table and bet: rounds, stakes, observed RTP with its 95 % interval, and the exact RTP
    (for the main bet: if every tie went to war, and if every tie was surrendered)."""
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0])  # n, sum r, sum r^2, staked
    fields = ("table_id", "main_bet", "tie_bet", "raise_bet", "nets")
    for table_id, main, tie, raised, nets in _decided(start, end).values_list(*fields).iterator():
        main_return = (main + raised + nets["main"] + nets["raise"] + nets["bonus"]) / main
        bucket = sums[(table_id, "main")]
        bucket[0] += 1
        bucket[1] += main_return
        bucket[2] += main_return * main_return
        bucket[3] += main + raised
        if tie:
            tie_return = (tie + nets["tie"]) / tie
            bucket = sums[(table_id, "tie")]
            bucket[0] += 1
            bucket[1] += tie_return
            bucket[2] += tie_return * tie_return
            bucket[3] += tie
    tables = Table.objects.in_bulk({table_id for table_id, _ in sums})
    rows = []
    for (table_id, bet), (n, total, squares, staked) in sorted(sums.items()):
        table = tables[table_id]
        odds = casino_war_odds(table.decks, table.tie_pays, table.tie_after_tie_bonus)
        mean = total / n
        spread = Z95 * math.sqrt(max(0.0, squares / n - mean * mean) * n / max(1, n - 1) / n)
        rows.append(
            {
                "table": table.name,
                "bet": bet,
                "rounds": n,
                "staked": staked,
                "observed_rtp": round(mean, 6),
                "ci95_low": round(mean - spread, 6),
                "ci95_high": round(mean + spread, 6),
                "exact_rtp": round(float(odds.rtp_tie_bet if bet == "tie" else odds.rtp_war), 6),
                "exact_rtp_if_surrendering": None if bet == "tie" else round(float(odds.rtp_surrender), 6),
            }
        )
    return rows
