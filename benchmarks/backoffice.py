"""The back office's dashboard and reports with a million rounds: each read timed on a scratch
PostgreSQL database filled with one `INSERT ... SELECT generate_series` (rounds of 60 days, a busy
today, partners' webhook deliveries, exclusions), cold (no day summed up yet) and warm.

    python benchmarks/backoffice.py [--rounds 1000000] [--days 60] [--today 50000] [--db cw_backoffice_bench]

Prints JSON: milliseconds per read (best of --repeat), beside the same figures read straight from
the rounds (what the reports did before `RoundHourTotal`), and the plan of the live read (the
rounds of the hours not summed up yet).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks._support import fresh_database

PLAYERS = 5_000
PARTNER_SHARE = 0.3  # of the players, a partner's (each of their rounds has a webhook delivery)


def _setup(url: str) -> None:
    os.environ.update(
        DATABASE_URL=url, DEBUG="false", SECRET_KEY="bench-" + "x" * 50, ALLOWED_HOSTS="*", SECURE_SSL_REDIRECT="false"
    )
    os.environ["REDIS_URL"] = ""  # no broker; set (though empty) so that a checkout's .env does not name one
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.conf import settings

    django.setup()
    # No `collectstatic` here: plain static names, as the tests use.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def _fill(rounds: int, days: int, today: int) -> dict:
    """Tables, players and their seed pairs through the ORM; rounds, deliveries and exclusions in SQL."""
    from django.db import connection

    from accounts.models import Partner, Player, User
    from casino.models import SeedPair, Table

    tables = [
        Table.objects.create(name="Classic EUR", currency="EUR", min_bet=100, max_bet=50_000, max_tie_bet=5_000),
        Table.objects.create(
            name="High Roller EUR",
            currency="EUR",
            min_bet=1_000,
            max_bet=500_000,
            bet_step=500,
            max_tie_bet=50_000,
            tie_pays=11,
            tie_after_tie_bonus=True,
        ),
        Table.objects.create(name="Classic USD", currency="USD", min_bet=100, max_bet=50_000, max_tie_bet=5_000),
    ]
    partners = [Partner.objects.create(name=f"Partner {i}", key_id=f"key{i}", secret="s" * 40) for i in range(2)]
    users = User.objects.bulk_create(User(username=f"bench{i}", password="!") for i in range(PLAYERS))
    players = Player.objects.bulk_create(
        Player(
            user=u,
            currency="USD" if i % 5 == 4 else "EUR",
            partner=partners[i % 2] if i < PLAYERS * PARTNER_SHARE else None,
            external_id=f"ext{i}" if i < PLAYERS * PARTNER_SHARE else "",
        )
        for i, u in enumerate(users)
    )
    SeedPair.objects.bulk_create(
        SeedPair(player=p, server_seed=f"{i:064x}", server_seed_hash=f"{i + 1:064x}", client_seed="bench")
        for i, p in enumerate(players)
    )
    eur_a, eur_b, usd = (t.pk for t in tables)
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        # One row per round: who (player i % PLAYERS and that player's seed pair, nonce i / PLAYERS),
        # when (`today` rounds since midnight, the rest over the days before), what (an outcome drawn
        # with Casino War's frequencies), and the nets, payout and statuses that outcome gives.
        cursor.execute(
            """
            WITH params AS (SELECT date_trunc('day', now()) AS midnight, now() AS now),
            players AS (
                SELECT p.id AS player_id, s.id AS seed_pair_id, p.currency, row_number() OVER (ORDER BY p.id) - 1 AS n
                FROM accounts_player p JOIN casino_seedpair s ON s.player_id = p.id
            ),
            drawn AS (
                SELECT g AS i, random() AS r_outcome, random() AS r_decide, random() AS r_time, random() AS r_bet,
                       random() AS r_tie_bet
                FROM generate_series(0, %(rounds)s - 1) AS g
            ),
            shaped AS (
                SELECT d.i, pl.player_id, pl.seed_pair_id, pl.currency, d.i / %(players)s AS nonce,
                    CASE WHEN pl.currency = 'USD' THEN %(usd)s WHEN d.i %% 3 = 0 THEN %(eur_b)s ELSE %(eur_a)s END AS table_id,
                    CASE WHEN d.i < %(today)s
                         THEN (SELECT midnight FROM params) + d.r_time * ((SELECT now FROM params) - (SELECT midnight FROM params))
                         ELSE (SELECT midnight FROM params) - (1 + d.r_time * (%(days)s - 1)) * interval '1 day'
                    END AS placed_at,
                    CASE WHEN d.r_outcome < 0.0739 THEN
                            CASE WHEN d.r_decide < 0.1 THEN 'surrender'
                                 WHEN d.r_decide < 0.1 + 0.9 * 0.4630 THEN 'war_lose'
                                 WHEN d.r_decide < 0.1 + 0.9 * (0.4630 + 0.0739) THEN 'war_tie'
                                 ELSE 'war_win' END
                         WHEN d.r_outcome < 0.0739 + 0.46305 THEN 'win' ELSE 'lose' END AS outcome,
                    d.r_outcome < 0.0739 AS tied, d.r_bet, d.r_tie_bet
                FROM drawn d JOIN players pl ON pl.n = d.i %% %(players)s
            ),
            bets AS (
                SELECT s.*, t.tie_pays, t.tie_after_tie_bonus,
                    (t.min_bet * (1 + floor(s.r_bet * 10)))::bigint AS main,
                    CASE WHEN s.r_tie_bet < 0.2 THEN t.bet_step ELSE 0 END::bigint AS tie
                FROM shaped s JOIN casino_table t ON t.id = s.table_id
            ),
            netted AS (
                SELECT b.*,
                    CASE b.outcome WHEN 'win' THEN b.main WHEN 'lose' THEN -b.main WHEN 'surrender' THEN -(b.main / 2 + b.main %% 2)
                                   WHEN 'war_lose' THEN -b.main ELSE 0 END AS net_main,
                    CASE WHEN b.outcome IN ('war_win', 'war_tie') THEN b.main WHEN b.outcome = 'war_lose' THEN -b.main ELSE 0 END
                        AS net_raise,
                    CASE WHEN b.tied THEN b.tie * b.tie_pays ELSE -b.tie END AS net_tie,
                    CASE WHEN b.outcome = 'war_tie' AND b.tie_after_tie_bonus THEN b.main ELSE 0 END AS net_bonus,
                    CASE WHEN b.outcome LIKE 'war_%%' THEN b.main ELSE 0 END AS raise
                FROM bets b
            )
            INSERT INTO casino_round (
                id, player_id, table_id, currency, status, rules, main_bet, tie_bet, raise_bet, player_card, dealer_card,
                burned, war_player_card, war_dealer_card, decision, decided_by_type, decided_by_id, decided_at,
                decision_deadline, decision_timed_out, outcome, nets, net, payout, seed_pair_id, nonce, shoe_nonce,
                shoe_position, placed_by_type, placed_by_id, settle_attempts, created_at, resolved_at, settled_at)
            SELECT md5(n.i::text)::uuid, n.player_id, n.table_id, n.currency,
                CASE WHEN n.i < 40 THEN 'awaiting_decision' WHEN n.i < 240 THEN 'resolved' ELSE 'settled' END,
                jsonb_build_object('decks', 6, 'burn', 3, 'tie_pays', n.tie_pays, 'tie_after_tie_bonus', n.tie_after_tie_bonus,
                                   'shuffle', 'fresh', 'penetration', 75, 'house_rule', 'war'),
                n.main, n.tie, CASE WHEN n.i < 40 THEN 0 ELSE n.raise END, 'KH', CASE WHEN n.tied THEN 'KS' ELSE '7C' END,
                CASE WHEN n.outcome LIKE 'war_%%' THEN '2C 3C 4C' ELSE '' END,
                CASE WHEN n.outcome LIKE 'war_%%' THEN '9D' ELSE '' END, CASE WHEN n.outcome LIKE 'war_%%' THEN '8D' ELSE '' END,
                CASE WHEN n.i < 40 OR NOT n.tied THEN '' WHEN n.outcome = 'surrender' THEN 'surrender' ELSE 'war' END,
                CASE WHEN n.tied AND n.i >= 40 THEN 'player' ELSE '' END, CASE WHEN n.tied AND n.i >= 40 THEN '1' ELSE '' END,
                CASE WHEN n.tied AND n.i >= 40 THEN n.placed_at + interval '3 seconds' END,
                CASE WHEN n.tied THEN n.placed_at + interval '30 seconds' END, false,
                CASE WHEN n.i < 40 THEN '' ELSE n.outcome END,
                jsonb_build_object('main', n.net_main, 'raise', n.net_raise, 'tie', n.net_tie, 'bonus', n.net_bonus),
                CASE WHEN n.i < 40 THEN NULL ELSE n.net_main + n.net_raise + n.net_tie + n.net_bonus END,
                CASE WHEN n.i < 40 THEN NULL ELSE n.main + n.tie + n.raise + n.net_main + n.net_raise + n.net_tie + n.net_bonus END,
                n.seed_pair_id, n.nonce, n.nonce, 0, 'player', n.player_id::text, CASE WHEN n.i < 240 THEN 0 ELSE 1 END,
                n.placed_at,
                CASE WHEN n.i < 40 THEN NULL WHEN n.tied THEN n.placed_at + interval '3 seconds' ELSE n.placed_at END,
                CASE WHEN n.i < 240 THEN NULL ELSE n.placed_at + (CASE WHEN n.tied THEN 3 ELSE 0 END + 0.1 + random() * 0.4) * interval '1 second' END
            FROM netted n
            ORDER BY n.placed_at  -- rounds arrive in time order: an hour's rounds share heap pages
            """,
            {
                "rounds": rounds,
                "players": PLAYERS,
                "days": days,
                "today": today,
                "usd": usd,
                "eur_a": eur_a,
                "eur_b": eur_b,
            },
        )
        # A webhook delivery per settled round of a partner's player: delivered, but for a few hundred.
        cursor.execute(
            """
            INSERT INTO casino_webhookdelivery (id, partner_id, round_id, event_type, payload, attempts, next_attempt_at,
                                                delivered_at, last_status_code, last_error, created_at)
            SELECT md5('d' || r.id::text)::uuid, p.partner_id, r.id, 'round.settled', '{}'::jsonb,
                CASE WHEN row_number() OVER () <= 300 THEN 4 ELSE 1 END, r.settled_at + interval '1 minute',
                CASE WHEN row_number() OVER () <= 500 THEN NULL ELSE r.settled_at + interval '0.2 seconds' END,
                CASE WHEN row_number() OVER () <= 300 THEN 503 WHEN row_number() OVER () <= 500 THEN NULL ELSE 200 END, '',
                r.settled_at
            FROM casino_round r JOIN accounts_player p ON p.id = r.player_id
            WHERE p.partner_id IS NOT NULL AND r.status = 'settled'
            """
        )
        cursor.execute(
            """
            INSERT INTO protection_exclusion (player_id, kind, starts_at, ends_at, requested_by_type, requested_by_id)
            SELECT p.id, CASE WHEN p.id % 3 = 0 THEN 'self_exclusion' ELSE 'timeout' END,
                   now() - (p.id % 40) * interval '1 day', now() + ((p.id % 40) - 20.5) * interval '1 day' + interval '21 days',
                   'player', p.id::text
            FROM accounts_player p WHERE p.id % 2 = 0
            """
        )
        cursor.execute(
            "INSERT INTO ledger_verificationrun (started_at, finished_at, ok, triggered_by, summary) "
            "SELECT now() - g * interval '1 day', now() - g * interval '1 day' + interval '40 seconds', g <> 3, 'nightly', "
            "'{\"entries\": 0}'::jsonb FROM generate_series(0, 29) g"
        )
        cursor.execute("SELECT count(*) FROM casino_round")
        (total,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM casino_webhookdelivery")
        (deliveries,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM protection_exclusion")
        (exclusions,) = cursor.fetchone()
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return {"rounds": total, "webhook_deliveries": deliveries, "exclusions": exclusions, "players": PLAYERS}


def _page(client, path: str):
    def get():
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)

    return get


def _best_ms(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 1)


def _once_ms(function) -> float:
    start = time.perf_counter()
    function()
    return round((time.perf_counter() - start) * 1000, 1)


def _dashboard_client():
    from django.contrib.auth.models import Group
    from django.test import Client
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from accounts.models import User
    from accounts.roles import OPERATOR
    from accounts.services import roles_sync

    roles_sync()
    user = User.objects.create_user(username="bench-operator", password="bench-operator-pass", is_staff=True)
    user.groups.add(Group.objects.get(name=OPERATOR))
    device = TOTPDevice.objects.create(user=user, name="bench", confirmed=True)
    client = Client()
    client.force_login(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()
    return client


def _plan(sql_of) -> list[str]:
    from django.db import connection

    sql, params = sql_of.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) {sql}", params)
        return [row[0] for row in cursor.fetchall()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=60, help="the rounds before today spread over this many days")
    parser.add_argument("--today", type=int, default=50_000, help="rounds since midnight (UTC)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", default="cw_backoffice_bench")
    args = parser.parse_args()

    url = fresh_database(args.db)
    _setup(url)
    from datetime import UTC, datetime, timedelta

    from django.db.models import F
    from django.db.models.functions import TruncDate
    from django.utils import timezone

    from casino import reports
    from casino.models import RoundHour

    started = time.perf_counter()
    data = _fill(args.rounds, args.days, args.today)
    data["fill_s"] = round(time.perf_counter() - started, 1)
    client = _dashboard_client()
    first_day = (timezone.now() - timedelta(days=reports.DASHBOARD_DAYS - 1)).date()
    cold = {
        # The first read after the deploy sums up the finished days it needs, once.
        "dashboard page, first ever (sums up the 30 days' finished hours)": _once_ms(_page(client, "/admin/")),
        "GGR report by day, all time, first (sums up the other hours)": _once_ms(lambda: reports.ggr_report(by="day")),
    }
    warm = {
        "dashboard page (whole request, operator)": _best_ms(_page(client, "/admin/"), args.repeat),
        "dashboard: play, today and 30 days per table": _best_ms(reports.dashboard_play, args.repeat),
        "dashboard: awaiting decision, settlement backlog and lag": _best_ms(reports.dashboard_operations, args.repeat),
        "dashboard: webhook deliveries failing": _best_ms(reports.dashboard_webhooks, args.repeat),
        "dashboard: ledger verification": _best_ms(reports.dashboard_verification, args.repeat),
        "dashboard: players in time-out or excluded": _best_ms(reports.dashboard_exclusions, args.repeat),
        "today's totals (finished hours summed, the last hour live)": _best_ms(
            lambda: reports.round_totals(start=timezone.now().date(), end=timezone.now().date()), args.repeat
        ),
        "GGR report by day, all time": _best_ms(lambda: reports.ggr_report(by="day"), args.repeat),
        "GGR report by partner, all time": _best_ms(lambda: reports.ggr_report(by="partner"), args.repeat),
        "RTP report, all time": _best_ms(reports.rtp_report, args.repeat),
        "reports page: GGR by day (whole request)": _best_ms(_page(client, "/admin/reports/ggr/"), args.repeat),
    }
    everything = datetime(2000, 1, 1, tzinfo=UTC)
    before = {
        "30 days per table, straight from the rounds": _best_ms(
            lambda: reports._grouped_sums(reports._known_rounds(timezone.now() - timedelta(days=30)), per="day"),
            args.repeat,
        ),
        "all time per day and table, straight from the rounds": _best_ms(
            lambda: reports._grouped_sums(reports._known_rounds(everything), per="day"), args.repeat
        ),
    }
    live_from = reports.last_finished_hour() + reports.HOUR
    plan = _plan(
        reports._known_rounds(live_from)
        .annotate(
            day=TruncDate("resolved_at", tzinfo=UTC),
            partner_id=F("player__partner_id"),
            **reports.ROUND_RULES,
        )
        .values(*reports.KEY)
        .annotate(**reports.SUMS)
        .order_by()
    )
    today_start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    before["today, straight from the rounds"] = _best_ms(
        lambda: reports._grouped_sums(reports._known_rounds(today_start), per="day"), args.repeat
    )
    print(
        json.dumps(
            {
                "data": data,
                "hours_summed_up": RoundHour.objects.count(),
                "dashboard_first_day": first_day.isoformat(),
                "cold_ms": cold,
                "warm_ms_best_of": args.repeat,
                "warm_ms": warm,
                "without_day_totals_ms": before,
                "plan_of_the_live_read": plan,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
