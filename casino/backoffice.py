"""Report pages of the back office (inside the admin's look), each with a CSV export."""

from __future__ import annotations

import csv
from datetime import date
from functools import wraps

from django.contrib import admin
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe

from casino.reports import GROUPS, ggr_report, rtp_report
from core.charts import bar_chart_svg
from ledger.models import VerificationRun


def back_office_view(permission: str):
    """A report page: staff verified by both factors (else the admin's sign-in), with `permission`."""

    def decorate(view):
        checked = permission_required(permission, raise_exception=True)(view)

        @wraps(view)
        def wrapper(request, *args, **kwargs):
            user = request.user
            if not (user.is_authenticated and user.is_staff and user.is_verified()):
                return redirect_to_login(request.get_full_path(), login_url=reverse("admin:login"))
            return checked(request, *args, **kwargs)

        return wrapper

    return decorate


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


@back_office_view("casino.view_round")
def reports_index(request):
    runs = VerificationRun.objects.all()[:30]
    return render(request, "admin/reports/index.html", _context(request, "Reports", groups=list(GROUPS), runs=runs))


@back_office_view("casino.view_round")
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


@back_office_view("casino.view_round")
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
