"""Report pages of the back office (inside the admin's look), each with a CSV export."""

from __future__ import annotations

import csv
from datetime import date

from django.contrib import admin
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from casino.reports import GROUPS, ggr_report, rtp_report
from core.charts import bar_chart_svg
from ledger.models import VerificationRun


def _dates(request) -> tuple[date | None, date | None, list[str]]:
    errors = []
    parsed = []
    for name in ("start", "end"):
        raw = request.GET.get(name, "")
        try:
            parsed.append(date.fromisoformat(raw) if raw else None)
        except ValueError:
            errors.append(f"{name} must be a date like 2026-11-29")
            parsed.append(None)
    return parsed[0], parsed[1], errors


def _csv(filename: str, rows: list[dict]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    if rows:
        writer = csv.DictWriter(response, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return response


def _context(request, title: str, **extra) -> dict:
    return {**admin.site.each_context(request), "title": title, **extra}


@permission_required("casino.view_round", raise_exception=True)
def reports_index(request):
    runs = VerificationRun.objects.all()[:30]
    return render(request, "admin/reports/index.html", _context(request, "Reports", groups=list(GROUPS), runs=runs))


@permission_required("casino.view_round", raise_exception=True)
def ggr(request):
    by = request.GET.get("by", "day")
    start, end, errors = _dates(request)
    if by not in GROUPS:
        errors.append(f"group by one of {', '.join(GROUPS)}")
        by = "day"
    rows = ggr_report(by=by, start=start, end=end)
    if request.GET.get("format") == "csv":
        return _csv(f"ggr-by-{by}", rows)
    charts = []
    for currency in sorted({row["currency"] for row in rows}):
        mine = [row for row in rows if row["currency"] == currency]
        svg = bar_chart_svg([row[by] for row in mine], [row["ggr"] / 100 for row in mine],
                            title=f"GGR by {by}, {currency}")  # fmt: skip
        charts.append(mark_safe(svg))
    return render(request, "admin/reports/table.html", _context(
        request, f"Gross gaming revenue by {by}", rows=rows, columns=list(rows[0]) if rows else [], charts=charts,
        errors=errors, by=by, groups=list(GROUPS), csv_query=request.GET.urlencode(), report="ggr",
    ))  # fmt: skip


@permission_required("casino.view_round", raise_exception=True)
def rtp(request):
    start, end, errors = _dates(request)
    rows = rtp_report(start=start, end=end)
    if request.GET.get("format") == "csv":
        return _csv("observed-rtp", rows)
    for row in rows:
        row["exact_inside_ci"] = row["ci95_low"] <= row["exact_rtp"] <= row["ci95_high"]
    return render(request, "admin/reports/table.html", _context(
        request, "Observed return to player per table and bet", rows=rows, columns=list(rows[0]) if rows else [],
        charts=[], errors=errors, csv_query=request.GET.urlencode(), report="rtp",
    ))  # fmt: skip
