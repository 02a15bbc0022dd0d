"""Rounds per second over HTTP beside the floor of the stack, side by side, same load.

In one invocation, for each pass: the smallest correct bet on this very stack
(`../shared/baselines/minimal_bet/run.sh`, given this project's Python) and this service on the
token path (`POST rounds/`) and on the signed partner path (`POST partner/players/{id}/rounds/`);
the floor first in odd passes and last in even ones, each run after a checkpoint of PostgreSQL.
Every service runs gunicorn with the same workers x threads (default 2 x 8, not niced) on the
same PostgreSQL (the floor's worker is gthread; ours is config/web_worker.py's, which spreads the
connections over the processes, as in production); ours also runs a Celery worker and beat on
Redis, as in production. Load: wrk, 16 connections, each its own player (one wrk thread per
connection), 3 s of warm-up, then the measured run. Afterwards, from the database: settlement
lag (resolved -> settled), that every round was staked and settled exactly once, and
`ledger_verify`. It prints every run and, per path and pass and for all passes together, our rate
and p99 beside the floor's and their ratios.

    python benchmarks/http_rounds.py [--seconds 20] [--passes 2] [--paths token,partner]

`--trace-tail` also times every request in gunicorn and every Celery task (production's configuration
and app plus hooks: benchmarks/tail_trace_*.py) and prints, for the rounds slower than
`--trace-slow-ms`, which tasks were running meanwhile: what the tail is made of.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks._support import database_quiet, fresh_database, pgbench_tps, require_wrk  # noqa: E402
from benchmarks.load import partner_headers  # noqa: E402

# Another session's benchmark on the same host: its own port, Redis database and PostgreSQL database.
PORT = int(os.environ.get("BENCH_PORT", "8077"))
REDIS_DB = int(os.environ.get("BENCH_REDIS_DB", "14"))
DATABASE = os.environ.get("BENCH_DATABASE", "bench_http")
WARM_UP_S = 3


def _floor_script() -> Path:
    """The floor's run.sh in ../shared beside the checkout; from a git worktree elsewhere, beside
    the main checkout (the worktrees' common git directory's checkout)."""
    beside = Path("shared") / "baselines" / "minimal_bet" / "run.sh"
    if (ROOT.parent / beside).exists():
        return ROOT.parent / beside
    try:
        common = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:  # no git here
        common = ""
    main_checkout = Path(common).parent if common else ROOT
    return main_checkout.parent / beside


FLOOR = _floor_script()
# BENCH_ROOT: serve another checkout's code (e.g. an older commit, side by side) under this same load.
CODE = Path(os.environ.get("BENCH_ROOT", ROOT)).resolve()
PYTHON = CODE / ".venv" / "bin" / "python"


def _wrk(script: str, env: dict, clients: int, seconds: float) -> dict:
    out = subprocess.run(
        [
            "wrk",
            f"-t{clients}",
            f"-c{clients}",
            f"-d{int(seconds)}s",
            "--latency",
            "-s",
            str(ROOT / "benchmarks" / script),
            f"http://127.0.0.1:{PORT}",
        ],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    sys.stderr.write(out.stderr)  # the scripts report the first body of each non-201 status
    text = out.stdout

    def ms(label: str) -> float:
        match = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", text, re.MULTILINE)
        if not match:
            return float("nan")
        value, unit = float(match.group(1)), match.group(2)
        return round(value / 1000 if unit == "us" else value * 1000 if unit == "s" else value, 1)

    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket_errors = re.search(r"Socket errors: (.*)", text)
    return {
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50_ms": ms("50%"),
        "p90_ms": ms("90%"),
        "p99_ms": ms("99%"),
        "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
        "socket_errors": socket_errors.group(1) if socket_errors else None,
    }


def _cpu_by_role(roots: dict[str, int], database: str) -> dict[str, float]:
    """CPU seconds used so far by this run's processes, by role: each of `roots` (a role and the
    pid of the process it started) with its descendants, the PostgreSQL backends of `database`,
    PostgreSQL's shared processes (WAL writer, checkpointer: every database's), and Redis."""
    tick = os.sysconf("SC_CLK_TCK")
    parents, used, commands = {}, {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            commands[int(stat.parent.name)] = (
                (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        pid = int(stat.parent.name)
        parents[pid], used[pid] = int(fields[1]), (int(fields[11]) + int(fields[12])) / tick
    roles: dict[str, float] = {}
    for pid, seconds in used.items():
        role, ancestor = None, pid
        while ancestor > 1 and role is None:
            role = next((name for name, root in roots.items() if root == ancestor), None)
            ancestor = parents.get(ancestor, 0)
        command = commands.get(pid, "")
        if role is None and command.startswith("postgres:"):
            role = (
                "postgresql"
                if f" {database} " in command
                else ("postgresql (shared)" if "postgres " not in command else None)
            )
        if role is None and "redis-server" in command:
            role = "redis"
        if role is not None:
            roles[role] = roles.get(role, 0.0) + seconds
    return roles


def _manage_shell(env: dict, code: str) -> str:
    return subprocess.run(
        [str(PYTHON), "manage.py", "shell", "-v", "0", "-c", code],
        cwd=CODE,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


AFTER_RUN = """
import json
from django.db.models import Count
from casino.models import Round
from ledger.models import JournalEntry
rows = Round.objects.filter(settled_at__isnull=False, resolved_at__isnull=False)
lags = sorted((s - r).total_seconds() for r, s in rows.values_list('resolved_at', 'settled_at'))
n = len(lags)
pick = lambda q: round(lags[min(n - 1, int(q * n))], 3) if n else None
rounds = Round.objects.count()
stakes = JournalEntry.objects.filter(idempotency_key__endswith=':stake').count()
settles = JournalEntry.objects.filter(idempotency_key__endswith=':settle').count()
print(json.dumps({
    'rounds': rounds, 'settled': Round.objects.filter(status='settled').count(),
    'stake_entries': stakes, 'settle_entries': settles,
    'each_round_staked_and_settled_once': rounds == stakes == settles == Round.objects.filter(status='settled').count(),
    'lag_s': {'p50': pick(0.5), 'p99': pick(0.99), 'max': pick(1)},
}))
"""


def run_ours(
    path: str,
    args,
    *,
    name: str | None = None,
    extra_env: dict | None = None,
    setup_code: str | None = None,
    companion=None,
    during=None,
    checks=None,
) -> dict:
    """One run of this service on `path` (token or partner). benchmarks/seamless_rounds.py runs the
    partner path against a partner's wallet with the rest: `extra_env` for the service, `setup_code`
    printing bench_setup's JSON, `companion(setup)` a context manager around the run yielding the
    process it started (its pid is counted as a role), `during(env)` a context manager around the
    measured load yielding a dict it fills with figures, `checks(env, setup, companion)` figures
    read once everything settled."""
    url = fresh_database(DATABASE, CODE)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": f"redis://127.0.0.1:6379/{REDIS_DB}",
        "DEBUG": "false",
        "SECRET_KEY": "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "THROTTLE_PLAYER": "10000000/min",
        "THROTTLE_PARTNER": "10000000/min",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),  # benchmarks/load.py, whichever checkout serves
        **(extra_env or {}),
    }
    subprocess.run(["redis-cli", "-n", str(REDIS_DB), "flushdb"], check=True, capture_output=True)
    setup = json.loads(
        _manage_shell(
            env,
            setup_code
            or (
                "import json; from benchmarks.load import bench_setup; "
                f"print(json.dumps(bench_setup(players={args.clients}, partner_players={args.clients})))"
            ),
        )
    )
    with companion(setup) if companion else contextlib.nullcontext() as extra:
        figures = _serve_and_load(path, args, env, setup, extra, during)
        if checks:
            figures |= checks(env, setup, extra)
    return {"service": name or f"casino_war:{path}", **figures}


def _serve_and_load(path: str, args, env: dict, setup: dict, extra, during) -> dict:
    schedule = Path(tempfile.mkdtemp(prefix="bench-beat-")) / "schedule"
    nice = ["nice", "-n", str(args.web_nice)] if args.web_nice else []
    trace = Path(tempfile.mkdtemp(prefix="bench-trace-")) if getattr(args, "trace_tail", False) else None
    if trace:  # production's gunicorn configuration and Celery app, plus hooks that time requests and tasks
        env = {**env, "TAIL_TRACE_DIR": str(trace), "PYTHONPATH": f"{ROOT / 'benchmarks'}:{env['PYTHONPATH']}"}
    gunicorn_config = ["--config", str(ROOT / "benchmarks" / "tail_trace_gunicorn.py")] if trace else []
    celery_app = "tail_trace_celery" if trace else "config"
    processes = [
        subprocess.Popen(
            [
                *nice,
                str(PYTHON),
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{PORT}",
                "--workers",
                str(args.workers),
                "--threads",
                str(args.threads),
                # The worker class is production's: gunicorn.conf.py, read from CODE.
                *gunicorn_config,
                "--log-level",
                "warning",
            ],
            cwd=CODE,
            env=env,
        ),
        # As production runs it (docker/compose.yaml, bin/serve): without gossip and mingle.
        subprocess.Popen(
            [
                str(PYTHON),
                "-m",
                "celery",
                "-A",
                celery_app,
                "worker",
                "--concurrency",
                str(args.worker_concurrency),
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=CODE,
            env=env,
        ),
        subprocess.Popen(
            [str(PYTHON), "-m", "celery", "-A", "config", "beat", "--loglevel", "WARNING", "--schedule", str(schedule)],
            cwd=CODE,
            env=env,
        ),
    ]
    try:
        for _ in range(150):
            try:
                connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
                connection.request("GET", "/healthz/live")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.2)
        time.sleep(3)  # the worker connects to the broker
        if path == "token":
            script = "wrk_rounds.lua"
            warm_env = run_env = {"BENCH_TOKENS": " ".join(setup["tokens"]), "BENCH_TABLE": setup["table"]}
        else:  # nonces are single-use: the warm-up and the run get requests signed apart
            script = "wrk_partner_rounds.lua"
            warm_env, run_env = _signed_requests(setup, args, WARM_UP_S), _signed_requests(setup, args, args.seconds)
        database_quiet()  # as before the floor's run: nothing left over from the run before
        _wrk(script, warm_env, args.clients, WARM_UP_S)
        roots = {"gunicorn": processes[0].pid, "celery worker": processes[1].pid, "celery beat": processes[2].pid}
        if getattr(extra, "pid", None):
            roots["partner wallet"] = extra.pid
        before = _cpu_by_role(roots, DATABASE)
        measured_from = time.time()
        with during(env) if during else contextlib.nullcontext({}) as sampled:
            run = _wrk(script, run_env, args.clients, args.seconds)
        measured = (measured_from, time.time())
        after_cpu = _cpu_by_role(roots, DATABASE)
        # Ties wait out their decision time (1 s), then the backlog settles; the lag is read from
        # the rounds' own times, so waiting here changes no figure.
        for _ in range(120):
            after = json.loads(_manage_shell(env, AFTER_RUN))
            if after["settled"] == after["rounds"]:
                break
            time.sleep(1)
        verify = subprocess.run([str(PYTHON), "manage.py", "ledger_verify"], cwd=CODE, env=env, capture_output=True)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
    rounds_run = run["rate"] * args.seconds
    cpu = {
        role: round((after_cpu.get(role, 0.0) - before.get(role, 0.0)) * 1000 / rounds_run, 2)
        for role in sorted(set(after_cpu) | set(before))
    }
    figures = {**run, **sampled, **after, "ledger_verifies": verify.returncode == 0, "cpu_ms_per_round": cpu}
    if trace:
        figures["tail"] = tail_attribution(trace, measured, slow_ms=args.trace_slow_ms)
    return figures


def tail_attribution(trace: Path, measured: tuple[float, float], *, slow_ms: float) -> dict:
    """From `--trace-tail`'s files: the measured run's rounds as the server timed them (from the
    request's start in the worker to its end), those at least `slow_ms` long, and for each set of
    Celery tasks running while a slow round ran (or none), how many slow rounds it overlapped;
    and each task's runs, wall and CPU time (its process's) during the run."""
    start, end = measured
    rounds = sorted(
        (float(began), float(took))
        for path in trace.glob("requests.*")
        for began, took, url in (line.split() for line in path.read_text().splitlines())
        if "/rounds" in url and start <= float(began) <= end
    )
    tasks = [
        (float(began), float(wall), float(cpu), name)
        for path in trace.glob("tasks.*")
        for began, wall, cpu, name in (line.split() for line in path.read_text().splitlines())
        if float(began) + float(wall) >= start and float(began) <= end
    ]
    took = sorted(t for _, t in rounds) or [0.0]
    slow = [(began, t) for began, t in rounds if t * 1000 >= slow_ms]
    overlapped: dict[str, int] = {}
    for began, t in slow:
        names = sorted({name for at, wall, _, name in tasks if at <= began + t and began <= at + wall})
        key = " + ".join(names) or "(no task)"
        overlapped[key] = overlapped.get(key, 0) + 1
    by_task: dict[str, list] = {}
    for _, wall, cpu, name in tasks:
        by_task.setdefault(name, []).append((wall, cpu))
    return {
        "server_ms": {q: round(took[min(len(took) - 1, int(len(took) * q / 100))] * 1000, 2) for q in (50, 90, 99)},
        "rounds": len(rounds),
        "slow_ms": slow_ms,
        "slow": len(slow),
        "slow_overlapping": dict(sorted(overlapped.items(), key=lambda item: -item[1])),
        "tasks": {
            name: {
                "runs": len(runs),
                "wall_ms_median": round(sorted(w for w, _ in runs)[len(runs) // 2] * 1000, 1),
                "wall_ms_total": round(sum(w for w, _ in runs) * 1000, 1),
                "cpu_ms_total": round(sum(c for _, c in runs) * 1000, 1),
            }
            for name, runs in sorted(by_task.items())
        },
    }


def _signed_requests(setup: dict, args, seconds: float) -> dict:
    """Requests signed in advance, a file per wrk thread, enough for `seconds` at the most."""
    directory = Path(tempfile.mkdtemp(prefix="bench-signed-"))
    body = ('{"table": "' + setup["table"] + '", "main_bet": 100}').encode()  # exactly what the Lua script sends
    count = int(_signed_rate_per_client(args) * (seconds + 2))
    for index in range(args.clients):
        external_id = setup["external_ids"][index % len(setup["external_ids"])]
        path = f"/api/v1/partner/players/{external_id}/rounds/"
        with (directory / f"signed{index}").open("w") as out:
            for n in range(count):
                headers = partner_headers(setup["partner_key"], setup["partner_secret"], "POST", path, body)
                out.write(
                    f"{headers['X-Timestamp']} {headers['X-Nonce']} {headers['X-Signature']} k{index}-{n}-{secrets.token_hex(4)}\n"
                )
    return {
        "BENCH_SIGNED": str(directory / "signed"),
        "BENCH_TABLE": setup["table"],
        "BENCH_PARTNER_KEY": setup["partner_key"],
        "BENCH_EXTERNAL_IDS": " ".join(setup["external_ids"]),
    }


# Signed requests per client and second when not given: at least this many, and enough for this
# total rate spread over the clients. One client alone runs faster than 150 rounds/s (250-400 here):
# with 150 it ran out of signed requests within 9 s and the rest of the run were fast 401 answers to
# replayed nonces, counted in the rate (the partner path's 1-client figures before 2026-12-05).
SIGNED_MIN_PER_CLIENT = 150
SIGNED_TOTAL_RATE = 1500


def _signed_rate_per_client(args) -> float:
    if args.max_rate_per_client is not None:
        return args.max_rate_per_client
    return max(SIGNED_MIN_PER_CLIENT, SIGNED_TOTAL_RATE / args.clients)


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def run_floor(args) -> dict:
    """The floor's run.sh, and the CPU per bet of its processes during its measured run (its
    gunicorn and its PostgreSQL backends), read as ours is: the same ratio in CPU, which the
    machine's noise moves far less than rates."""
    database_quiet()
    env = {
        **os.environ,
        "MINBET_SECONDS": str(int(args.seconds)),
        "MINBET_CLIENTS": str(args.clients),  # the floor under the same number of connections as ours
        "MINBET_WORKERS": str(args.workers),
        "MINBET_THREADS": str(args.threads),
        "MINBET_NICE": str(args.web_nice),
    }
    script = subprocess.Popen(["bash", args.floor, str(PYTHON)], env=env, stdout=subprocess.PIPE, text=True)
    database = f"minimal_bet_{script.pid}"  # run.sh names its database after its own pid
    measured = before = after = roots = None
    while script.poll() is None:  # a look at run.sh's children ten times a second: next to nothing
        children = {pid: _command(pid) for pid in _children(script.pid)}
        if measured is None:
            wrk = next(
                (
                    pid
                    for pid, command in children.items()
                    if command.startswith("wrk ") and f"-d{int(args.seconds)}s" in command
                ),
                None,
            )
            web = next((pid for pid, command in children.items() if "minbet.wsgi" in command), None)
            if wrk is not None and web is not None:
                measured, roots = wrk, {"gunicorn": web}
                before = _cpu_by_role(roots, database)
        elif measured not in children:
            after = _cpu_by_role(roots, database)
            break
        time.sleep(0.1)
    stdout, _ = script.communicate()
    if script.returncode:
        raise subprocess.CalledProcessError(script.returncode, args.floor)
    figures = json.loads(stdout.strip().splitlines()[-1])
    bets = figures["bets_per_s"] * args.seconds
    cpu = {}
    if after is not None:
        cpu = {
            role: round((after.get(role, 0.0) - before.get(role, 0.0)) * 1000 / bets, 2)
            for role in ("gunicorn", "postgresql")
        }
    return {
        "service": "floor:minimal_bet",
        "rate": figures["bets_per_s"],
        "p50_ms": figures["p50_ms"],
        "p99_ms": figures["p99_ms"],
        "non_2xx": figures["non2xx"],
        "money_conserved": figures["money_conserved"],
        "cpu_ms_per_bet": cpu,
    }


def arguments(description: str) -> argparse.ArgumentParser:
    """The options of a run of the stack (shared with benchmarks/seamless_rounds.py)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (ours and the floor's)")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker (ours and the floor's)")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--web-nice", type=int, default=0, help="niceness of the web servers (0: not niced)")
    parser.add_argument(
        "--trace-tail",
        action="store_true",
        help="ours: time every request in gunicorn and every Celery task, and print which tasks ran while the "
        "slow rounds ran (a diagnostic run: the hooks cost a little)",
    )
    parser.add_argument("--trace-slow-ms", type=float, default=5.0, help="--trace-tail: a slow round, in ms")
    parser.add_argument(
        "--max-rate-per-client",
        type=float,
        default=None,
        help="partner path: requests signed in advance per client and second "
        f"(default: {SIGNED_TOTAL_RATE} over all clients, at least {SIGNED_MIN_PER_CLIENT} each)",
    )
    return parser


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--paths", default="token,partner")
    parser.add_argument(
        "--floor",
        default=str(FLOOR),
        help="the floor's run.sh (default: ../shared beside the checkout, or beside the main checkout of a worktree)",
    )
    parser.add_argument("--no-floor", action="store_true", help="skip the floor (no ../shared here)")
    parser.add_argument("--pgbench", action="store_true", help="also pgbench tpcb-like TPS, after each pass")
    args = parser.parse_args()
    require_wrk()
    paths = [p for p in args.paths.split(",") if p]

    runs: list[dict] = []
    for number in range(1, args.passes + 1):
        # The order turns every pass (the floor first, then last), so that neither side always gets
        # the machine as the other left it: a first run after a pause was seen to be the fastest.
        services = [("floor", None)] * (not args.no_floor) + [("ours", path) for path in paths]
        for kind, path in services if number % 2 else reversed(services):
            runs.append({"pass": number, **(run_floor(args) if kind == "floor" else run_ours(path, args))})
            print(json.dumps(runs[-1]), flush=True)
        if args.pgbench:
            runs.append({"pass": number, "service": "pgbench:tpcb-like", "rate": pgbench_tps(args.clients, 10)})
            print(json.dumps(runs[-1]), flush=True)

    summary = {}
    for path in paths:
        for number in range(1, args.passes + 1):
            ours = next(r for r in runs if r["pass"] == number and r["service"] == f"casino_war:{path}")
            row = {
                "rounds_per_s": ours["rate"],
                "p50_ms": ours["p50_ms"],
                "p99_ms": ours["p99_ms"],
                "lag_p99_s": ours["lag_s"]["p99"],
                "non_2xx": ours["non_2xx"],
                "exactly_once": ours["each_round_staked_and_settled_once"],
                "ledger_verifies": ours["ledger_verifies"],
            }
            if "tail" in ours:
                row["tail"] = ours["tail"]
            floor = next((r for r in runs if r["pass"] == number and r["service"] == "floor:minimal_bet"), None)
            if floor:
                row |= {
                    "floor_bets_per_s": floor["rate"],
                    "floor_p99_ms": floor["p99_ms"],
                    "rate_ratio": round(ours["rate"] / floor["rate"], 3),
                    "p99_ratio": round(ours["p99_ms"] / floor["p99_ms"], 3),
                }
                if floor.get("cpu_ms_per_bet"):  # web server and database, per round and per bet
                    row["cpu_ratio"] = round(
                        sum(ours["cpu_ms_per_round"].get(role, 0) for role in ("gunicorn", "postgresql"))
                        / sum(floor["cpu_ms_per_bet"].values()),
                        3,
                    )
            summary[f"{path} (pass {number})"] = row
        floors = [r for r in runs if r["service"] == "floor:minimal_bet"]
        if floors:  # all passes together: the figure least moved by one disturbed run
            ours = [r for r in runs if r["service"] == f"casino_war:{path}"]
            summary[f"{path} (all passes)"] = {
                "rate_ratio": round(sum(r["rate"] for r in ours) / sum(r["rate"] for r in floors), 3),
                "p99_ratio": round(max(r["p99_ms"] for r in ours) / max(r["p99_ms"] for r in floors), 3),
                "lag_p99_s": max(r["lag_s"]["p99"] for r in ours),
                "non_2xx": sum(r["non_2xx"] for r in ours),
                "exactly_once": all(r["each_round_staked_and_settled_once"] for r in ours),
                "ledger_verifies": all(r["ledger_verifies"] for r in ours),
            }
    print(
        json.dumps(
            {"summary": summary, "targets": "rate_ratio >= 0.75, p99_ratio <= 2, lag_p99_s < 1, non_2xx 0"}, indent=2
        )
    )


if __name__ == "__main__":
    main()
