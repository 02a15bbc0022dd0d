"""Pages of the back office beside the admin's own (inside its look): the dashboard at /admin/ and
the reports at /admin/reports/, each report with a CSV export.

Who sees what: any staff member signed in with both factors opens the dashboard and sees the parts
their role's permissions cover. Rounds and their progress (`casino.view_round`): operator,
auditor and support. Stakes, GGR and return to player (`casino.view_revenue`): operator and
auditor, not support. Webhook deliveries and ledger verification runs: operator and auditor.
Players in a time-out or self-exclusion (`protection.view_exclusion`): all three.

Money is written in its currency (`format_money`) on the pages; a CSV gives an amount as a plain
decimal of major units (`6.00`) beside a `currency` column, which spreadsheets and scripts read
without knowing the language of the page.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import wraps

from django.contrib import admin
from django.contrib.auth.decorators import permission_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe

from accounts.models import Partner
from casino.reports import (
    DASHBOARD_DAYS,
    GROUPS,
    dashboard_exclusions,
    dashboard_operations,
    dashboard_play,
    dashboard_verification,
    dashboard_webhooks,
    ggr_report,
    rtp_report,
)
from casino.selectors import WALLET_CALL_OVERDUE_AFTER, wallet_calls_acknowledged_by_currency, wallet_calls_pending
from core import clock
from core.charts import bar_chart_svg, interval_chart_svg
from core.csv_export import CsvWriter
from ledger.admin_money import money_text
from ledger.models import VerificationRun
from ledger.money import money_decimal
from protection.models import ExclusionKind

REVENUE = "casino.view_revenue"
ROUNDS = "casino.view_round"
WEBHOOKS = "casino.view_webhookdelivery"
VERIFICATION = "ledger.view_verificationrun"
EXCLUSIONS = "protection.view_exclusion"
WALLET_CALLS = "casino.view_walletcall"
MONEY_COLUMNS = {"staked", "paid_out", "ggr"}


def back_office_view(permission: str | None):
    """A page of the back office: staff verified by both factors (else the admin's sign-in),
    with `permission` (None: any such staff member)."""

    def decorate(view):
        checked = permission_required(permission, raise_exception=True)(view) if permission else view

        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not admin.site.has_permission(request):
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
    """Rows as CSV; amounts (minor units in `MONEY_COLUMNS`) as decimals of major units."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    if rows:
        writer = CsvWriter(response)  # cells that a spreadsheet would run as formulas are neutralised
        writer.writerow(rows[0].keys())
        for row in rows:
            writer.writerow(money_decimal(v) if key in MONEY_COLUMNS else v for key, v in row.items())
    return response


def _context(request, title: str, **extra) -> dict:
    return {**admin.site.each_context(request), "title": title, **extra}


def percent(fraction: float | None, digits: int = 2) -> str:
    return "-" if fraction is None else f"{fraction * 100:.{digits}f} %"


def count(number: int) -> str:
    return f"{number:,}"


def age(since: datetime | None, now: datetime) -> str:
    if since is None:
        return "-"
    return duration((now - since).total_seconds())


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400 * 2:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


# --- The dashboard ------------------------------------------------------------------------------


def _play_section(play, *, revenue: bool) -> dict:
    currencies = sorted(set(play.period) | set(play.today))
    totals = [
        {
            "currency": c,
            "today_rounds": count(play.today[c].rounds) if c in play.today else "0",
            "period_rounds": count(play.period[c].rounds),
            "today_staked": money_text(play.today[c].staked if c in play.today else 0, c),
            "today_ggr": money_text(play.today[c].ggr if c in play.today else 0, c),
            "period_staked": money_text(play.period[c].staked, c),
            "period_ggr": money_text(play.period[c].ggr, c),
        }
        for c in currencies
    ]
    tables = []
    for t in play.tables:
        row = {
            "table": t.table,
            "currency": t.currency,
            "rules": t.rules,
            "today_rounds": count(t.today.rounds),
            "period_rounds": count(t.totals.rounds),
        }
        if revenue:
            main = t.main
            row |= {
                "today_staked": money_text(t.today.staked, t.currency),
                "today_ggr": money_text(t.today.ggr, t.currency),
                "period_staked": money_text(t.totals.staked, t.currency),
                "period_ggr": money_text(t.totals.ggr, t.currency),
                "observed": percent(main.rtp) if main else "-",
                "interval": f"{percent(main.low)} to {percent(main.high)}" if main else "",
                "exact_war": percent(t.exact_war, 3),
                "exact_surrender": percent(t.exact_surrender, 3),
                "inside": t.exact_inside,
                "tie_observed": percent(t.tie.rtp) if t.tie else "no tie bets",
                "tie_exact": percent(t.exact_tie, 3),
            }
        tables.append(row)
    labels = [day.isoformat() for day in play.days]
    charts = []
    rounds_per_day = [sum(days[day].rounds for days in play.per_day.values() if day in days) for day in play.days]
    charts.append(
        mark_safe(
            bar_chart_svg(
                labels,
                rounds_per_day,
                title=f"Rounds per day, last {DASHBOARD_DAYS} days",
                value_text=lambda v: count(round(v)),
            )
        )
    )
    if revenue:
        for c in currencies:
            days = play.per_day.get(c, {})
            ggr = [days[day].ggr if day in days else 0 for day in play.days]
            charts.append(
                mark_safe(
                    bar_chart_svg(
                        labels, ggr, title=f"GGR per day, {c}", value_text=lambda v, c=c: money_text(round(v), c)
                    )
                )
            )
        intervals = [
            (f"{t.table} ({t.currency})", t.main.low, t.main.rtp, t.main.high, t.exact_war)
            for t in play.tables
            if t.main is not None
        ]
        if intervals:
            charts.append(
                mark_safe(
                    interval_chart_svg(
                        intervals,
                        title=f"Main bet: observed RTP, last {DASHBOARD_DAYS} days, against the exact figure (war)",
                        value_text=lambda v: percent(v),
                    ),
                )
            )
    return {"totals": totals, "tables": tables, "charts": charts}


@back_office_view(None)
def dashboard(request):
    """What an operator opens every morning (the admin's index): play, revenue and the health of
    the money's way, each part as far as the staff member's role shows it."""
    now = clock.now()
    user = request.user
    can = {
        name: user.has_perm(permission)
        for name, permission in (
            ("rounds", ROUNDS),
            ("revenue", REVENUE),
            ("webhooks", WEBHOOKS),
            ("verification", VERIFICATION),
            ("exclusions", EXCLUSIONS),
            ("wallet_calls", WALLET_CALLS),
        )
    }
    context = {"can": can, "now": now, "days": DASHBOARD_DAYS}
    if can["rounds"]:
        context["play"] = _play_section(dashboard_play(now=now), revenue=can["revenue"])
        ops = dashboard_operations(now=now)
        context["operations"] = {
            "awaiting": count(ops.awaiting),
            "overdue": count(ops.awaiting_overdue),
            "has_overdue": ops.awaiting_overdue > 0,
            "backlog": count(ops.backlog),
            "oldest_unsettled": age(ops.oldest_unsettled, now),
            "slow": ops.oldest_unsettled is not None and now - ops.oldest_unsettled > timedelta(seconds=30),
            "backlog_empty": ops.backlog == 0,
            "settled_recently_n": ops.settled_recently,
            "settled_recently": count(ops.settled_recently),
            "lag_average": duration(ops.lag_average_s),
            "lag_max": duration(ops.lag_max_s),
        }
    if can["webhooks"]:
        hooks = dashboard_webhooks()
        context["webhooks"] = {
            "undelivered": count(hooks.undelivered),
            "failing": count(hooks.failing),
            "has_failing": hooks.failing > 0,
            "oldest_failing": age(hooks.oldest_failing, now),
            "by_partner": [(name, count(n)) for name, n in hooks.failing_by_partner],
        }
    if can["verification"]:
        context["verification"] = dashboard_verification(now=now)
    if can["exclusions"]:
        excluded = dashboard_exclusions(now=now)
        context["exclusions"] = [(label, count(excluded[kind]), kind) for kind, label in ExclusionKind.choices]
    return render(request, "admin/dashboard.html", _context(request, "Overview", **context))


# --- Reports ------------------------------------------------------------------------------------


@back_office_view(REVENUE)
def reports_index(request):
    runs = VerificationRun.objects.all()[:30] if request.user.has_perm(VERIFICATION) else None
    return render(request, "admin/reports/index.html", _context(request, "Reports", groups=list(GROUPS), runs=runs))


def _cells(rows: list[dict]) -> list[list[str]]:
    """A report's rows as people read them: amounts in their currency, counts with separators."""

    def cell(key, value, row):
        if key in MONEY_COLUMNS:
            return money_text(value, row["currency"])
        return count(value) if key == "rounds" else value

    return [[cell(key, value, row) for key, value in row.items()] for row in rows]


@back_office_view(REVENUE)
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
        svg = bar_chart_svg(
            [row[by] for row in mine],
            [row["ggr"] for row in mine],
            title=f"GGR by {by}, {currency}",
            value_text=lambda v, c=currency: money_text(round(v), c),
        )
        charts.append(mark_safe(svg))
    columns = [by, "currency", "rounds", "staked", "paid out", "GGR"]
    return render(
        request,
        "admin/reports/table.html",
        _context(
            request,
            f"Gross gaming revenue by {by}",
            rows=_cells(rows),
            columns=columns,
            charts=charts,
            errors=errors,
            by=by,
            groups=list(GROUPS),
            csv_query=request.GET.urlencode(),
            report="ggr",
        ),
    )


@back_office_view(REVENUE)
def rtp(request):
    start, end, errors = _dates(request)
    rows = rtp_report(start=start, end=end)
    if request.GET.get("format") == "csv":
        return _csv("observed-rtp", rows)
    cells = [
        [
            row["table"],
            row["rules"],
            row["bet"],
            row["currency"],
            count(row["rounds"]),
            money_text(row["staked"], row["currency"]),
            percent(row["observed_rtp"], 3),
            f"{percent(row['ci95_low'], 3)} to {percent(row['ci95_high'], 3)}",
            percent(row["exact_rtp"], 3),
            percent(row["exact_rtp_if_surrendering"], 3) if row["exact_rtp_if_surrendering"] is not None else "-",
            "yes" if row["ci95_low"] <= row["exact_rtp"] <= row["ci95_high"] else "NO",
        ]
        for row in rows
    ]
    columns = [
        "table",
        "rules",
        "bet",
        "currency",
        "rounds",
        "staked",
        "observed RTP",
        "95 % interval",
        "exact RTP (war)",
        "exact RTP (surrender)",
        "exact inside the interval",
    ]
    return render(
        request,
        "admin/reports/table.html",
        _context(
            request,
            "Observed return to player per table and bet",
            rows=cells,
            columns=columns,
            charts=[],
            errors=errors,
            csv_query=request.GET.urlencode(),
            report="rtp",
        ),
    )


# --- Seamless wallets ---------------------------------------------------------------------------


@back_office_view(WALLET_CALLS)
def wallet_reconciliation(request):
    """A seamless partner's UTC day of wallet calls, the figures `partner_reconcile` prints (per
    currency here): what its wallet acknowledged, per kind, and every call still pending."""
    partners = list(Partner.objects.exclude(wallet_url="").order_by("name"))
    chosen = request.GET.get("partner", "")
    partner = next((p for p in partners if str(p.pk) == chosen), partners[0] if partners else None)
    errors = []
    try:
        day = date.fromisoformat(request.GET["date"]) if request.GET.get("date") else clock.now().date()
    except ValueError:
        errors.append("date must be a date like 2026-11-29")
        day = clock.now().date()
    figures, pending = [], []
    if partner is not None:
        for currency, kinds in sorted(wallet_calls_acknowledged_by_currency(partner=partner, day=day).items()):
            for kind, totals in kinds.items():
                figures.append((currency, kind, count(totals["count"]), money_text(totals["total"], currency)))
        pending = [
            (
                c["transaction_id"],
                c["kind"],
                money_text(c["amount"], c["currency"]),
                c["player"],
                c["attempts"],
                c["created_at"],
                c["last_error"] or "-",
                "past its retries" if c["overdue"] else "being retried",
            )
            for c in wallet_calls_pending(partner=partner, day=day)
        ]
    return render(
        request,
        "admin/reconciliation.html",
        _context(
            request,
            "Seamless wallet reconciliation",
            partners=partners,
            partner=partner,
            day=day.isoformat(),
            figures=figures,
            pending=pending,
            errors=errors,
            overdue_minutes=int(WALLET_CALL_OVERDUE_AFTER.total_seconds() // 60),
        ),
    )
