"""Rounds per second end to end over HTTP: gunicorn on PostgreSQL, a Celery worker on Redis,
16 concurrent clients each placing rounds (after a 3 s warm-up); p50/p99 latency, and settlement lag (resolved ->
settled) from the database afterwards; pgbench tpcb-like TPS on the same server in the same run.

    python benchmarks/http_rounds.py [--seconds 15] [--clients 16]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks._support import fresh_database, pgbench_tps  # noqa: E402

PORT = 8077
REDIS_URL = "redis://127.0.0.1:6379/14"
WARM_UP_S = 3


def _client(args) -> list[tuple[float, int]]:
    token, table, seconds, index = args
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    body = json.dumps({"table": table, "main_bet": 100})
    results = []
    deadline = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < deadline:
        n += 1
        started = time.perf_counter()
        conn.request("POST", "/api/v1/rounds/", body, {**headers, "Idempotency-Key": f"c{index}-{n}"})
        response = conn.getresponse()
        response.read()
        results.append((time.perf_counter() - started, response.status))
    conn.close()
    return results


def _run_wrk(tokens: list[str], table: str, clients: int, seconds: float) -> dict:
    env = {**os.environ, "BENCH_TOKENS": " ".join(tokens), "BENCH_TABLE": table}
    out = subprocess.run(
        ["wrk", f"-t{clients}", f"-c{clients}", f"-d{int(seconds)}s", "--latency", "-s", str(ROOT / "benchmarks" / "wrk_rounds.lua"),
         f"http://127.0.0.1:{PORT}"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    sys.stderr.write(out.stderr)  # the script reports the first body of each non-201 status
    out = out.stdout

    def ms(label: str) -> float:
        match = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
        if not match:
            return float("nan")
        value, unit = float(match.group(1)), match.group(2)
        return round(value / 1000 if unit == "us" else value * 1000 if unit == "s" else value, 1)

    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    if socket_errors:  # connect/read/write/timeout: requests wrk gave up on, not in the rate
        sys.stderr.write(f"wrk socket errors: {socket_errors.group(1)}\n")
    return {
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "latency_ms": {"p50": ms("50%"), "p90": ms("90%"), "p99": ms("99%")},
        "errors": int(non_2xx.group(1)) if non_2xx else 0,
    }


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    parser.add_argument("--worker-class", default="gthread", choices=["gthread", "sync"])
    parser.add_argument(
        "--web-nice",
        type=int,
        default=10,
        help="CPU niceness of the web server: settlement workers come first, as on a production host "
        "where they have cores of their own (0: share the CPU equally)",
    )
    parser.add_argument(
        "--client",
        choices=["wrk", "python"],
        default="wrk" if shutil.which("wrk") else "python",
        help="load generator: wrk (C, needs `apt-get install wrk`) leaves the CPU to the server",
    )
    args = parser.parse_args()

    url = fresh_database("bench_http")
    env = {
        **os.environ, "DATABASE_URL": url, "REDIS_URL": REDIS_URL, "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "false", "THROTTLE_PLAYER": "10000000/min",
        "LOG_LEVEL": "WARNING",
    }  # fmt: skip
    subprocess.run(["redis-cli", "-n", "14", "flushdb"], check=True, capture_output=True)
    setup = (
        "from accounts.services import player_create; from casino.models import Table; "
        "from core.actors import Actor; from ledger.services import wallet_deposit; "
        "from accounts.tokens import token_issue; "
        "t = Table.objects.create(name='Bench', min_bet=100, max_bet=100000, bet_step=100, max_tie_bet=0, "
        "decision_timeout_s=1); "
        "tokens = []\n"
        f"for n in range({args.clients}):\n"
        "    p = player_create(username=f'bench{n}', password=None)\n"
        "    wallet_deposit(player=p, amount=10**12, idempotency_key=f'fund{n}', actor=Actor.system('bench'))\n"
        "    tokens.append(token_issue(user=p.user))\n"
        "print(t.pk, ' '.join(tokens))"
    )
    out = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", setup], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    table, tokens = out[0], out[1:]
    server = subprocess.Popen(
        ["nice", "-n", str(args.web_nice), sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{PORT}", "--workers",
         str(args.workers), "--threads", str(args.threads), "--worker-class", args.worker_class, "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "2", "--loglevel", os.environ.get("BENCH_WORKER_LOG", "WARNING"),
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "WARNING",
                             "--schedule", "/tmp/bench-beat-schedule"], cwd=ROOT, env=env)  # fmt: skip
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                time.sleep(0.2)
        time.sleep(2)
        if args.client == "wrk":
            # Steady state: the first requests of each gunicorn process and thread (connections,
            # translation catalogues, URL and serializer set-up) are not what a live server serves.
            _run_wrk(tokens, table, args.clients, WARM_UP_S)
            wrk = _run_wrk(tokens, table, args.clients, args.seconds)
        else:
            with mp.get_context("spawn").Pool(args.clients) as pool:
                started = time.perf_counter()
                runs = pool.map(_client, [(tokens[i], table, args.seconds, i) for i in range(args.clients)])
                elapsed = time.perf_counter() - started
        time.sleep(5)  # let settlement finish
        lag_script = (
            "from casino.models import Round; import json\n"
            "rows = Round.objects.filter(settled_at__isnull=False, resolved_at__isnull=False)\n"
            "lags = sorted((s - r).total_seconds() for r, s in rows.values_list('resolved_at', 'settled_at'))\n"
            "n = len(lags)\n"
            "pick = lambda q: lags[min(n - 1, int(q * n))] if n else None\n"
            "left = Round.objects.filter(status='resolved').count()\n"
            "print(json.dumps({'settled': n, 'unsettled_resolved': left, 'p50': pick(0.5), 'p99': pick(0.99), 'max': pick(1)}))"
        )
        lag = json.loads(subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", lag_script], cwd=ROOT, env=env,
                                        check=True, capture_output=True, text=True).stdout)  # fmt: skip
        verify = subprocess.run([sys.executable, "manage.py", "ledger_verify"], cwd=ROOT, env=env, capture_output=True)
    finally:
        for process in (server, worker, beat):
            process.send_signal(signal.SIGTERM)
        for process in (server, worker, beat):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
    tps = pgbench_tps(args.clients, int(args.seconds))
    if args.client == "wrk":
        rate, latency, errors = wrk["rate"], wrk["latency_ms"], wrk["errors"]
    else:
        latencies = [latency for run in runs for latency, status in run if status == 201]
        errors = sum(1 for run in runs for _, status in run if status != 201)
        rate = len(latencies) / elapsed
        latency = {
            "p50": round(statistics.median(latencies) * 1000, 1),
            "p99": round(percentile(latencies, 99) * 1000, 1),
            "max": round(max(latencies) * 1000, 1),
        }
    figures = {
        "clients": args.clients,
        "load_generator": args.client,
        "rounds_per_s": round(rate, 1),
        "latency_ms": latency,
        "non_201_responses": errors,
        "settlement_lag_s": lag,
        "ledger_verifies_after": verify.returncode == 0,
        "pgbench_tpcb_like_tps": round(tps),
        "ratio_to_pgbench": round(rate / tps, 3),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
