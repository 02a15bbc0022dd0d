"""Reads of the accounts app."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Sum

from accounts.models import Partner, Player, Transfer


def partner_transfers(
    *, partner: Partner, player: Player | None = None, date: dt.date | None = None, reference: str | None = None
):
    """A transfer partner's transfers, newest first: of one player, of one UTC day, or the one with
    a reference (a reference names one transfer of the partner)."""
    transfers = Transfer.objects.filter(partner=partner).select_related("player")
    if player is not None:
        transfers = transfers.filter(player=player)
    if date is not None:
        start = dt.datetime.combine(date, dt.time.min, tzinfo=dt.UTC)
        transfers = transfers.filter(created_at__gte=start, created_at__lt=start + dt.timedelta(days=1))
    if reference is not None:
        transfers = transfers.filter(reference=reference)
    return transfers.order_by("-created_at", "-id")


def partner_transfer_totals(*, partner: Partner, day: dt.date) -> dict[str, dict[str, int]]:
    """A UTC day's transfers of the partner, counted and totalled per direction (minor units):
    {"in": {"count", "total"}, "out": {"count", "total"}}."""
    totals = {direction: {"count": 0, "total": 0} for direction in ("in", "out")}
    rows = partner_transfers(partner=partner, date=day).order_by().values("direction")
    for row in rows.annotate(count=Count("id"), total=Sum("amount")):
        totals[row["direction"]] = {"count": row["count"], "total": row["total"]}
    return totals
