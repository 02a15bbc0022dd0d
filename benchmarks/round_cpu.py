"""CPU of one round in the web process, serially, through the whole Django stack (WSGI handler,
middleware, DRF, the service, PostgreSQL round trips), and the SQL statements it runs; with
--profile, where the time goes (cProfile, top functions by cumulative and own time).

    python benchmarks/round_cpu.py [--rounds 2000] [--profile] [--partner] [--house-rule] [--settle] [--get PATH]

It needs PostgreSQL on 127.0.0.1:5432 (BENCH_PG_PORT: another port; with pg_stat_statements there,
it prints where the database time goes, statement by statement) and Redis (REDIS_URL, default db 13); it makes a scratch
database `bench_round_cpu`. Settlement is not run here (no worker): this is the request's cost;
--house-rule and --settle then run, in this process, what the worker would: the house rule for
the ties left waiting, and the settlement of every resolved round.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks._support import fresh_database  # noqa: E402
from benchmarks.load import bench_setup, partner_headers  # noqa: E402

# BENCH_ROOT: measure another checkout's code (e.g. main, side by side with a change)
CODE = Path(os.environ.get("BENCH_ROOT", ROOT))


def _process_cpu_s(pid: int) -> float:
    """User + system CPU of a process on this machine (the PostgreSQL backend serving us)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _statements_cursor():
    """A cursor on the database's cluster if it records statements (pg_stat_statements, e.g. the
    cluster of BENCH_PG_PORT), else None."""
    from django.db import connection

    cursor = connection.cursor()
    cursor.execute("SELECT to_regclass('pg_stat_statements') IS NOT NULL")
    if cursor.fetchone()[0]:
        return cursor
    cursor.close()
    return None


def statements_reset() -> None:
    cursor = _statements_cursor()
    if cursor is not None:
        with cursor:
            cursor.execute("SELECT pg_stat_statements_reset()")


def statements_report(rounds: int) -> None:
    """With pg_stat_statements (track = all: statements inside functions too), each statement's
    time per round since the reset, own and planning, most first."""
    cursor = _statements_cursor()
    if cursor is None:
        return
    with cursor:
        cursor.execute(
            "SELECT calls, total_exec_time, total_plan_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 150)"
            " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " ORDER BY total_exec_time + total_plan_time DESC LIMIT 40"
        )
        print("pg_stat_statements (nested statements counted inside their callers' time too):")
        print(f"  {'calls/round':>11} {'exec us/round':>13} {'plan us/round':>13}  statement")
        for calls, exec_ms, plan_ms, query in cursor.fetchall():
            print(f"  {calls / rounds:11.2f} {exec_ms * 1000 / rounds:13.1f} {plan_ms * 1000 / rounds:13.1f}  {query}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--partner", action="store_true", help="the signed partner path instead of a token")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--get", metavar="PATH", help="time GET PATH (with the token, or signed with --partner) instead"
    )
    parser.add_argument(
        "--house-rule",
        action="store_true",
        help="then take the house rule for the ties left waiting, as the worker does, and measure that",
    )
    parser.add_argument(
        "--seamless",
        type=float,
        metavar="MS",
        default=None,
        help="a seamless partner's player (implies --partner), its wallet a process of its own "
        "answering after MS ms; --settle then also sends the credits, as the worker does",
    )
    parser.add_argument(
        "--settle",
        action="store_true",
        help="then settle the rounds placed as the worker does (batches), and measure that too",
    )
    args = parser.parse_args()
    args.partner = args.partner or args.seamless is not None

    url = fresh_database(os.environ.get("BENCH_DB", "bench_round_cpu"), CODE)  # BENCH_DB: beside others' runs
    os.environ.update(
        DATABASE_URL=url,
        REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        DEBUG="false",
        SECRET_KEY="bench-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1,testserver",
        SECURE_SSL_REDIRECT="false",
        THROTTLE_PLAYER="100000000/min",
        THROTTLE_PARTNER="100000000/min",
        LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    sys.path.insert(0, str(CODE))
    os.chdir(CODE)
    import django

    django.setup()
    from django.core.cache import cache

    cache.clear()
    wallet = contextlib.nullcontext()
    if args.seamless is None:
        setup = bench_setup(players=1, partner_players=1)
    else:  # the wallet's address is known once it runs, and it needs the partner's secret first
        from django.conf import settings

        from benchmarks.seamless_rounds import partner_wallet

        settings.OUTBOUND_ALLOW_PRIVATE = True
        port = int(os.environ.get("BENCH_WALLET_PORT", "18202"))
        setup = bench_setup(players=0, partner_players=1, wallet_url=f"http://127.0.0.1:{port}/wallet")
        wallet = partner_wallet(setup, port=port, latency_ms=args.seamless)
    with wallet:
        _measure(args, setup)


def _measure(args, setup: dict) -> None:
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection, reset_queries

    table = setup["table"]
    handler = WSGIHandler()
    body = json.dumps({"table": table, "main_bet": 100}).encode()

    def environ(n: int) -> dict:
        path = "/api/v1/rounds/" if not args.partner else f"/api/v1/partner/players/{setup['external_ids'][0]}/rounds/"
        headers = {"HTTP_IDEMPOTENCY_KEY": f"cpu-{n}-{time.time_ns()}"}
        if args.partner:
            signed_method, signed_path, signed_body = ("GET", args.get, b"") if args.get else ("POST", path, body)
            signed = partner_headers(
                setup["partner_key"], setup["partner_secret"], signed_method, signed_path, signed_body
            )
            for name, value in signed.items():
                headers["HTTP_" + name.upper().replace("-", "_")] = value
        else:
            headers["HTTP_AUTHORIZATION"] = f"Token {setup['tokens'][0]}"
        method, sent = "POST", body
        if args.get:
            method, path, sent = "GET", args.get, b""
        return {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "HTTP_HOST": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(sent)),
            "wsgi.input": io.BytesIO(sent),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "REMOTE_ADDR": "127.0.0.1",
            **headers,
        }

    statuses: dict[str, int] = {}

    def one(n: int) -> None:
        status = []
        chunks = handler(environ(n), lambda s, h, exc_info=None: status.append(s))
        b"".join(chunks)
        statuses[status[0]] = statuses.get(status[0], 0) + 1

    for n in range(200):  # warm-up: connections, catalogues, URL resolver, serializers
        one(-n - 1)
    print(f"warmed up; measuring in process {os.getpid()}", file=sys.stderr, flush=True)
    connection.force_debug_cursor = True
    reset_queries()
    one(0)
    statements = [q["sql"] for q in connection.queries]
    connection.force_debug_cursor = False

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    statements_reset()
    backend_started = _process_cpu_s(backend)
    profiler = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not waits
    started_cpu, started_wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    for n in range(1, args.rounds + 1):
        one(n)
    if profiler:
        profiler.disable()
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started_wall
    backend_cpu = _process_cpu_s(backend) - backend_started
    house_rule = {}
    if args.house_rule:
        from datetime import timedelta

        from django.utils import timezone

        from casino.models import Round, RoundStatus
        from casino.services.rounds import rounds_decide_timed_out

        Round.objects.filter(status=RoundStatus.AWAITING_DECISION).update(
            decision_deadline=timezone.now() - timedelta(seconds=1)
        )
        backend_started, started_cpu = _process_cpu_s(backend), time.process_time()
        count = rounds_decide_timed_out(limit=1_000_000)
        house_rule = {
            "ties_decided": count,
            "house_rule_cpu_ms_per_tie": round((time.process_time() - started_cpu) / count * 1000, 3),
            "house_rule_postgres_cpu_ms_per_tie": round((_process_cpu_s(backend) - backend_started) / count * 1000, 3),
        }
    settled = {}
    if args.settle:
        from casino.services.settlement import rounds_settle_due

        time.sleep(1.5)  # ties wait out their decision time (without --house-rule they stay waiting)
        from casino.services import settlement, wallets

        settlement.wallet_credits_enqueue = lambda: None  # the credits are measured apart, below
        backend_started, started_cpu = _process_cpu_s(backend), time.process_time()
        count = rounds_settle_due()
        settled = {
            "settled": count,
            "settle_cpu_ms_per_round": round((time.process_time() - started_cpu) / count * 1000, 3),
            "settle_postgres_cpu_ms_per_round": round((_process_cpu_s(backend) - backend_started) / count * 1000, 3),
        }
        if args.seamless is not None:
            backend_started, started_cpu = _process_cpu_s(backend), time.process_time()
            if profiler:  # with --profile, where the credits' time goes too (this thread's share)
                profiler.enable()
            # (a checkout from before batched credits, BENCH_ROOT: its sweeper sends them one by one)
            send = getattr(wallets, "wallet_credits_send", None) or wallets.wallet_calls_send_due
            credited = send()
            if profiler:
                profiler.disable()
            settled |= {
                "credited": credited,
                "credit_cpu_ms_per_round": round((time.process_time() - started_cpu) / credited * 1000, 3),
                "credit_postgres_cpu_ms_per_round": round(
                    (_process_cpu_s(backend) - backend_started) / credited * 1000, 3
                ),
            }
    print(
        json.dumps(
            {
                "path": "partner" if args.partner else "token",
                "rounds": args.rounds,
                "statuses": statuses,
                **house_rule,
                **settled,
                "cpu_ms_per_round": round(cpu / args.rounds * 1000, 3),
                "wall_ms_per_round": round(wall / args.rounds * 1000, 3),
                "postgres_backend_cpu_ms_per_round": round(backend_cpu / args.rounds * 1000, 3),
                "statements_per_round": len(statements),
            },
            indent=2,
        )
    )
    statements_report(args.rounds)
    if os.environ.get("BENCH_SHOW_SQL"):
        for statement in statements:
            print("  ", statement[:300])
    if profiler:
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.top)
            print(out.getvalue())
        if os.environ.get("BENCH_PROFILE_OUT"):
            profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])


if __name__ == "__main__":
    main()
