"""Reads of the back office: the dashboard, gross gaming revenue and observed return to player.

A round counts once its outcome is known (resolved or settled), in the UTC hour (and day) it
became known (`resolved_at`, set once). GGR = stakes - payouts, in minor units, never mixing
currencies. Observed RTP per table and bet sits beside the exact figure of the odds module, with a
95 % interval from the per-round returns.

Fast with millions of rounds: a finished hour (over for `GRACE`, longer than any transaction)
never changes, so it is summed once from the rounds' (status, resolved_at) index into
`RoundHourTotal` rows, per table, partner, currency and odds-setting rules (`round_hours_sum_up`,
run by beat and by any read that finds a finished hour missing). Reads add those rows to the
rounds of the hours not summed up yet (the last hour or so), read through the same index: what a
read costs follows the period's hours, not its rounds. docs/BENCHMARKS.md has the timings with a
million rounds.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field, fields
from datetime import UTC, date, datetime, time, timedelta
from functools import cache

from django.db import transaction
from django.db.models import Avg, BigIntegerField, BooleanField, Count, F, FloatField, IntegerField, Max, Min, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, NullIf, TruncDate, TruncHour

from accounts.models import Partner
from casino.models import Round, RoundHour, RoundHourTotal, RoundStatus, Table, WebhookDelivery
from casino.odds import casino_war_odds
from casino.odds.stats import Z95, proportion
from core import clock
from ledger.models import VerificationRun
from protection.models import Exclusion, ExclusionKind

GRACE = timedelta(minutes=10)
HOUR = timedelta(hours=1)
KNOWN = (RoundStatus.RESOLVED, RoundStatus.SETTLED)  # outcome known: what revenue counts
GROUPS = ("day", "table", "partner", "currency")
OWN_PLAYERS = "(own players)"
SETTLEMENT_LAG_WINDOW = timedelta(minutes=15)


def _as_float(expression):
    return Cast(expression, FloatField())


def _net(bet: str):
    return Coalesce(Cast(KT(f"nets__{bet}"), BigIntegerField()), 0)


# What the main bet returned per unit of the main bet: 1 + its net with the raise's and the bonus's
# (a war lost returns -1: the main bet and the raise are gone), as the odds module's RTP counts it
# (1 - house edge per unit of the original wager); and the tie bet per unit of the tie bet.
MAIN_RETURN = _as_float(F("main_bet") + _net("main") + _net("raise") + _net("bonus")) / _as_float(F("main_bet"))
TIE_RETURN = _as_float(F("tie_bet") + _net("tie")) / _as_float(NullIf(F("tie_bet"), 0))
# The rules that set the odds, as the round was played (the table's own for a round without them).
ROUND_RULES = {
    "decks": Coalesce(Cast(KT("rules__decks"), IntegerField()), F("table__decks"), output_field=IntegerField()),
    "tie_pays": Coalesce(
        Cast(KT("rules__tie_pays"), IntegerField()), F("table__tie_pays"), output_field=IntegerField()
    ),
    "tie_after_tie_bonus": Coalesce(
        Cast(KT("rules__tie_after_tie_bonus"), BooleanField()), F("table__tie_after_tie_bonus")
    ),
}
SUMS = {
    "rounds": Count("id"),
    "staked": Coalesce(Sum(F("main_bet") + F("tie_bet") + F("raise_bet")), 0),
    "paid": Coalesce(Sum("payout"), 0),
    "main_staked": Coalesce(Sum(F("main_bet") + F("raise_bet")), 0),
    "main_return_sum": Coalesce(Sum(MAIN_RETURN), 0.0),
    "main_return_squares": Coalesce(Sum(MAIN_RETURN * MAIN_RETURN), 0.0),
    "tie_rounds": Count("id", filter=Q(tie_bet__gt=0)),
    "tie_staked": Coalesce(Sum("tie_bet"), 0),
    "tie_return_sum": Coalesce(Sum(TIE_RETURN, filter=Q(tie_bet__gt=0)), 0.0),
    "tie_return_squares": Coalesce(Sum(TIE_RETURN * TIE_RETURN, filter=Q(tie_bet__gt=0)), 0.0),
}
GROUP = ("table_id", "partner_id", "currency", "decks", "tie_pays", "tie_after_tie_bonus")
KEY = ("day", *GROUP)  # what reads sum up to: a day's figures of one group


@dataclass
class Totals:
    """Sums of rounds (one group of `KEY`, or several added up)."""

    rounds: int = 0
    staked: int = 0
    paid: int = 0
    main_staked: int = 0
    main_return_sum: float = 0.0
    main_return_squares: float = 0.0
    tie_rounds: int = 0
    tie_staked: int = 0
    tie_return_sum: float = 0.0
    tie_return_squares: float = 0.0

    def add(self, other: Totals | dict) -> None:
        values = other if isinstance(other, dict) else vars(other)
        for name in FIGURES:
            setattr(self, name, getattr(self, name) + values[name])

    @property
    def ggr(self) -> int:
        return self.staked - self.paid


FIGURES = tuple(f.name for f in fields(Totals))


@dataclass
class Observed:
    """Observed RTP of one bet: the mean return per unit staked, with a 95 % interval that never
    leaves what the bet can return (a short run's interval would otherwise read "-19 % to 127 %")."""

    rounds: int
    rtp: float
    low: float
    high: float

    @classmethod
    def of(cls, n: int, total: float, squares: float, *, least: float, most: float) -> Observed | None:
        """The normal interval of the mean return, clipped to [least, most]: what one unit of the bet
        can return at worst and at best under the rounds' rules."""
        if not n:
            return None
        mean = total / n
        variance = max(0.0, squares / n - mean * mean) * n / max(1, n - 1)
        spread = Z95 * math.sqrt(variance / n)
        return cls(n, mean, max(least, mean - spread), min(most, mean + spread))

    @classmethod
    def of_wins(cls, n: int, total: float, *, pays: int) -> Observed | None:
        """A bet that returns `pays + 1` per unit or nothing (the tie bet): Wilson's score interval
        of its share of wins, which cannot leave [0, pays + 1]."""
        if not n:
            return None
        won = proportion(round(total / (pays + 1)), n)
        low, high = min(won.low, won.value), max(won.high, won.value)  # (no rounding noise past the share itself)
        return cls(n, total / n, low * (pays + 1), high * (pays + 1))


def main_return_bounds(*, tie_after_tie_bonus: bool) -> tuple[float, float]:
    """What one unit of the main bet can return (MAIN_RETURN): -1 for a war lost (the raise is lost
    too), up to 2 for a win (3 for a tie in the war with the tie-after-tie bonus)."""
    return -1.0, 3.0 if tie_after_tie_bonus else 2.0


# --- Summing up finished hours ------------------------------------------------------------------


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def last_finished_hour(now: datetime | None = None) -> datetime:
    """The start of the latest UTC hour whose rounds can no longer change (over for GRACE)."""
    now = (now or clock.now()).astimezone(UTC)
    return (now - GRACE).replace(minute=0, second=0, microsecond=0) - HOUR


def _known_rounds(since: datetime | None, until: datetime | None = None):
    rounds = Round.objects.filter(status__in=KNOWN)
    if since is not None:
        rounds = rounds.filter(resolved_at__gte=since)
    return rounds.filter(resolved_at__lt=until) if until is not None else rounds


def _grouped_sums(rounds, *, per: str) -> list[dict]:
    """Sums per group and hour or day (`per`): one statement on the (status, resolved_at) index."""
    period = TruncHour("resolved_at", tzinfo=UTC) if per == "hour" else TruncDate("resolved_at", tzinfo=UTC)
    return list(
        rounds.annotate(**{per: period}, partner_id=F("player__partner_id"), **ROUND_RULES)
        .values(per, *GROUP)
        .annotate(**SUMS)
        .order_by()
    )


def _first_known_hour() -> datetime | None:
    # One indexed MIN per status: (status, resolved_at) answers each from its first entry.
    firsts = [Round.objects.filter(status=status).aggregate(first=Min("resolved_at"))["first"] for status in KNOWN]
    firsts = [moment for moment in firsts if moment is not None]
    return min(firsts).astimezone(UTC).replace(minute=0, second=0, microsecond=0) if firsts else None


def round_hours_sum_up(*, since: datetime | None = None, now: datetime | None = None) -> int:
    """Sum up every finished hour not summed up yet, from `since` (default: the first resolved
    round's hour): one statement and one transaction per day of missing hours. Runs at the same time
    (beat and a page) may sum the same hours; the second one's rows are ignored (one row per hour
    and group), so nothing counts twice. Returns how many hours it summed up."""
    last = last_finished_hour(now)
    first = _first_known_hour()
    if first is None:
        return 0
    since = max(since or first, first)
    if since > last:
        return 0
    marked = RoundHour.objects.filter(hour__gte=since, hour__lte=last)
    if marked.count() == (last - since) // HOUR + 1:
        return 0  # every hour is summed up already: one count of the (small) markers' primary key
    done = set(marked.values_list("hour", flat=True))
    missing: dict[date, list[datetime]] = defaultdict(list)
    hour = since
    while hour <= last:
        if hour not in done:
            missing[hour.date()].append(hour)
        hour += HOUR
    summed = 0
    for hours in missing.values():
        # Idempotent: a concurrent run summing the same hours inserts the same rows, which are ignored.
        with transaction.atomic():
            RoundHour.objects.bulk_create(
                (RoundHour(hour=h, summed_at=clock.now()) for h in hours), ignore_conflicts=True
            )
            rows = _grouped_sums(_known_rounds(min(hours), max(hours) + HOUR), per="hour")
            wanted = set(hours)
            RoundHourTotal.objects.bulk_create(
                (RoundHourTotal(**row) for row in rows if row["hour"] in wanted), ignore_conflicts=True
            )
        summed += len(hours)
    return summed


def round_totals(*, start: date | None = None, end: date | None = None, now: datetime | None = None) -> list[dict]:
    """Sums of the rounds resolved from `start` to `end` (UTC days, both included; open ends: all),
    one dict per `KEY` (a day and a group): the summed-up hours, added up by the database, and the
    rounds of the hours after them."""
    since = _day_start(start) if start is not None else None
    until = _day_start(end + timedelta(days=1)) if end is not None else None
    last = last_finished_hour(now)
    if since is None or since <= last:
        round_hours_sum_up(since=since, now=now)
    summed = RoundHourTotal.objects.filter(hour__lte=last)
    if since is not None:
        summed = summed.filter(hour__gte=since)
    if until is not None:
        summed = summed.filter(hour__lt=until)
    rows = list(
        summed.annotate(day=TruncDate("hour", tzinfo=UTC))
        .values(*KEY)
        .annotate(**{f: Sum(f) for f in FIGURES})
        .order_by()
    )
    live_from = max(last + HOUR, since) if since is not None else last + HOUR
    if until is None or live_from < until:
        rows += _grouped_sums(_known_rounds(live_from, until), per="day")
    return rows


# --- Reports ------------------------------------------------------------------------------------


def _group_names(by: str, rows: list[dict]) -> dict:
    if by == "table":
        return dict(Table.objects.filter(pk__in={r["table_id"] for r in rows}).values_list("pk", "name"))
    if by == "partner":
        return dict(Partner.objects.filter(pk__in={r["partner_id"] for r in rows} - {None}).values_list("pk", "name"))
    return {}


def ggr_report(*, by: str, start: date | None = None, end: date | None = None) -> list[dict]:
    """One row per group and currency: rounds, staked, paid out, GGR (minor units)."""
    if by not in GROUPS:
        raise ValueError(f"group by one of {', '.join(GROUPS)}")
    rows = round_totals(start=start, end=end)
    names = _group_names(by, rows)
    groups: dict[tuple, Totals] = defaultdict(Totals)
    for row in rows:
        if by == "day":
            group = row["day"].isoformat()
        elif by == "table":
            group = names.get(row["table_id"], str(row["table_id"]))
        elif by == "partner":
            group = OWN_PLAYERS if row["partner_id"] is None else names.get(row["partner_id"], str(row["partner_id"]))
        else:
            group = row["currency"]
        groups[(group, row["currency"])].add(row)
    return [
        {by: group, "currency": currency, "rounds": t.rounds, "staked": t.staked, "paid_out": t.paid, "ggr": t.ggr}
        for (group, currency), t in sorted(groups.items())
    ]


@cache
def _exact(decks: int, tie_pays: int, tie_after_tie_bonus: bool) -> dict[str, float]:
    odds = casino_war_odds(decks, tie_pays, tie_after_tie_bonus)
    return {"war": float(odds.rtp_war), "surrender": float(odds.rtp_surrender), "tie": float(odds.rtp_tie_bet)}


def rules_words(decks: int, tie_pays: int, tie_after_tie_bonus: bool) -> str:
    return f"{decks} decks, tie pays {tie_pays} to 1{', tie-after-tie bonus' if tie_after_tie_bonus else ''}"


@dataclass
class TableRtp:
    """A table (under one set of odds-setting rules) over a period: sums, observed and exact RTP."""

    table: str
    currency: str
    rules: str
    totals: Totals
    main: Observed | None
    tie: Observed | None
    exact_war: float
    exact_surrender: float
    exact_tie: float
    today: Totals = field(default_factory=Totals)

    @property
    def exact_inside(self) -> bool | None:
        """The exact figure (every tie to war) inside the 95 % interval of the main bet's observed RTP."""
        return None if self.main is None else self.main.low <= self.exact_war <= self.main.high


def _per_table(rows: list[dict]) -> dict[tuple, Totals]:
    tables: dict[tuple, Totals] = defaultdict(Totals)
    for row in rows:
        tables[(row["table_id"], row["currency"], row["decks"], row["tie_pays"], row["tie_after_tie_bonus"])].add(row)
    return tables


def _table_rtps(rows: list[dict], today_rows: list[dict] | None = None) -> list[TableRtp]:
    tables = _per_table(rows)
    today = _per_table(today_rows or [])
    names = dict(Table.objects.filter(pk__in={key[0] for key in tables}).values_list("pk", "name"))
    result = []
    for key, t in tables.items():
        table_id, currency, decks, tie_pays, bonus = key
        exact = _exact(decks, tie_pays, bonus)
        least, most = main_return_bounds(tie_after_tie_bonus=bonus)
        result.append(
            TableRtp(
                table=names.get(table_id, str(table_id)),
                currency=currency,
                rules=rules_words(decks, tie_pays, bonus),
                totals=t,
                tie=Observed.of_wins(t.tie_rounds, t.tie_return_sum, pays=tie_pays),
                main=Observed.of(t.rounds, t.main_return_sum, t.main_return_squares, least=least, most=most),
                exact_war=exact["war"],
                exact_surrender=exact["surrender"],
                exact_tie=exact["tie"],
                today=today.get(key, Totals()),
            )
        )
    return sorted(result, key=lambda r: (r.table, r.currency, r.rules))


def rtp_report(*, start: date | None = None, end: date | None = None) -> list[dict]:
    """Per table and bet: rounds, stakes, observed RTP with its 95 % interval, and the exact RTP
    (for the main bet: if every tie went to war, and if every tie was surrendered)."""
    rows = []
    for t in _table_rtps(round_totals(start=start, end=end)):
        for bet, observed, staked, exact in (
            ("main", t.main, t.totals.main_staked, t.exact_war),
            ("tie", t.tie, t.totals.tie_staked, t.exact_tie),
        ):
            if observed is None:
                continue
            rows.append(
                {
                    "table": t.table,
                    "rules": t.rules,
                    "bet": bet,
                    "currency": t.currency,
                    "rounds": observed.rounds,
                    "staked": staked,
                    "observed_rtp": round(observed.rtp, 6),
                    "ci95_low": round(observed.low, 6),
                    "ci95_high": round(observed.high, 6),
                    "exact_rtp": round(exact, 6),
                    "exact_rtp_if_surrendering": round(t.exact_surrender, 6) if bet == "main" else None,
                }
            )
    return rows


# --- The dashboard ------------------------------------------------------------------------------

DASHBOARD_DAYS = 30


@dataclass
class Play:
    """Today and the last 30 days: totals per currency, per table, and per day for the charts."""

    today: dict[str, Totals]
    period: dict[str, Totals]
    days: list[date]
    per_day: dict[str, dict[date, Totals]]
    tables: list[TableRtp]


def dashboard_play(*, now: datetime | None = None) -> Play:
    now = now or clock.now()
    today = now.astimezone(UTC).date()
    first = today - timedelta(days=DASHBOARD_DAYS - 1)
    rows = round_totals(start=first, end=today, now=now)
    today_rows = [row for row in rows if row["day"] == today]
    per_currency_today: dict[str, Totals] = defaultdict(Totals)
    per_currency: dict[str, Totals] = defaultdict(Totals)
    per_day: dict[str, dict[date, Totals]] = defaultdict(lambda: defaultdict(Totals))
    for row in rows:
        per_currency[row["currency"]].add(row)
        per_day[row["currency"]][row["day"]].add(row)
    for row in today_rows:
        per_currency_today[row["currency"]].add(row)
    days = [first + timedelta(days=i) for i in range(DASHBOARD_DAYS)]
    return Play(
        today=dict(per_currency_today),
        period=dict(per_currency),
        days=days,
        per_day={c: dict(d) for c, d in per_day.items()},
        tables=_table_rtps(rows, today_rows),
    )


@dataclass
class Operations:
    awaiting: int
    awaiting_overdue: int
    oldest_deadline: datetime | None
    backlog: int
    oldest_unsettled: datetime | None
    settled_recently: int
    lag_average_s: float | None
    lag_max_s: float | None


def dashboard_operations(*, now: datetime | None = None) -> Operations:
    """Rounds waiting for a decision and for settlement, and how long settlement takes now: each
    figure from the (status, decision_deadline) or (status, resolved_at) index."""
    now = now or clock.now()
    waiting = Round.objects.filter(status=RoundStatus.AWAITING_DECISION).aggregate(
        n=Count("id"), overdue=Count("id", filter=Q(decision_deadline__lt=now)), oldest=Min("decision_deadline")
    )
    backlog = Round.objects.filter(status=RoundStatus.RESOLVED).aggregate(n=Count("id"), oldest=Min("resolved_at"))
    recent = Round.objects.filter(status=RoundStatus.SETTLED, resolved_at__gte=now - SETTLEMENT_LAG_WINDOW).aggregate(
        n=Count("id"), average=Avg(F("settled_at") - F("resolved_at")), longest=Max(F("settled_at") - F("resolved_at"))
    )
    return Operations(
        awaiting=waiting["n"],
        awaiting_overdue=waiting["overdue"],
        oldest_deadline=waiting["oldest"],
        backlog=backlog["n"],
        oldest_unsettled=backlog["oldest"],
        settled_recently=recent["n"],
        lag_average_s=recent["average"].total_seconds() if recent["average"] is not None else None,
        lag_max_s=recent["longest"].total_seconds() if recent["longest"] is not None else None,
    )


@dataclass
class Webhooks:
    undelivered: int
    failing: int
    oldest_failing: datetime | None
    failing_by_partner: list[tuple[str, int]]


def dashboard_webhooks() -> Webhooks:
    """Deliveries not made yet, and those already refused or unreachable at least once (the
    partial index of undelivered deliveries)."""
    undelivered = WebhookDelivery.objects.filter(delivered_at__isnull=True)
    totals = undelivered.aggregate(
        n=Count("id"), failing=Count("id", filter=Q(attempts__gt=0)), oldest=Min("created_at", filter=Q(attempts__gt=0))
    )
    by_partner = (
        undelivered.filter(attempts__gt=0)
        .values("partner__name")
        .annotate(n=Count("id"))
        .order_by("-n", "partner__name")
    )
    return Webhooks(
        undelivered=totals["n"],
        failing=totals["failing"],
        oldest_failing=totals["oldest"],
        failing_by_partner=[(row["partner__name"], row["n"]) for row in by_partner],
    )


@dataclass
class Verification:
    latest: VerificationRun | None
    last_ok: VerificationRun | None
    failed_recently: int


def dashboard_verification(*, now: datetime | None = None) -> Verification:
    now = now or clock.now()
    runs = VerificationRun.objects.order_by("-started_at")
    failed = runs.filter(ok=False, started_at__gte=now - timedelta(days=DASHBOARD_DAYS)).count()
    return Verification(latest=runs.first(), last_ok=runs.filter(ok=True).first(), failed_recently=failed)


def dashboard_exclusions(*, now: datetime | None = None) -> dict[str, int]:
    """Players in a time-out or a self-exclusion now, per kind (a player counted once per kind)."""
    now = now or clock.now()
    counts = dict(
        Exclusion.objects.filter(starts_at__lte=now, ends_at__gt=now)
        .values("kind")
        .annotate(players=Count("player", distinct=True))
        .order_by()
        .values_list("kind", "players")
    )
    return {kind: counts.get(kind, 0) for kind in ExclusionKind.values}
