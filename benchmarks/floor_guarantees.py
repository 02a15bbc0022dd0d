"""What a round's guarantees cost on this stack before any of this service's code: the floor's bet
(`../shared/baselines/minimal_bet`) rebuilt in `benchmarks/floor_plus`, then the same bet with the
guarantees added one at a time, each written the cheapest correct way (the ORM, no hand SQL):

    floor            DRF token auth, one transaction, the wallet row locked, stake + payout, a bet row
    + middleware     a product's middleware (security headers, static files, sessions, CSRF, locale)
    + idempotency    the response stored under (caller, Idempotency-Key) in the same transaction
    + audit          an audit row per bet
    + ledger         double-entry: an entry and its postings for the stake and the payout, the
                     player's wallet, in-play and house accounts locked in key order
    + settle_apart   the payout in a second transaction (as a worker would settle; its message
                     and the worker's own CPU not counted: a lower bound)
    + sql            each of the two transactions one database function (hand SQL, prepared
                     statements on the server, as this service runs PostgreSQL)
    + seamless       (after `sql`, only if --steps names it) the stake debited from a partner's
                     wallet (`python -m tests.wallet_server`, a process of its own answering after
                     --wallet-latency-ms): the debit recorded pending and committed before the call,
                     the call signed over a kept-alive connection, the debit acknowledged in the
                     bet's transaction; after settling, the credit recorded pending with it, sent,
                     and acknowledged by a thread of the web process (as a worker would: its
                     message not counted), so a slow wallet delays no answer.
                     The least a correct seamless bet adds on this stack; compared with `sql` it
                     bounds what a seamless round can reach against a transfer round.

Same load as benchmarks/http_rounds.py (gunicorn 2 x 8 gthread, not niced; wrk 16 connections,
each its own player; 3 s warm-up, then the measured run), and the shared floor itself in the same
invocation. Prints each run, its CPU per bet by process and its ratio to the floor.

    python benchmarks/floor_guarantees.py [--seconds 20] [--passes 1]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks._support import psql, require_wrk  # noqa: E402
from benchmarks.http_rounds import FLOOR, PORT, PYTHON, _cpu_by_role, _wrk  # noqa: E402

STEPS = ["", "middleware", "idempotency", "audit", "ledger", "settle_apart", "sql"]
DATABASE = "bench_floor_plus"
SETUP = """
import json
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from benchmarks.floor_plus.models import Account, Wallet
tokens = []
for i in range(16):
    user = User.objects.create(username=f'p{i}')
    Wallet.objects.create(user=user, balance=10**12)
    for kind in ('wallet', 'in_play', 'house'):
        Account.objects.create(user=user, kind=kind, balance=10**12 if kind == 'wallet' else 0)
    tokens.append(Token.objects.create(user=user).key)
print(json.dumps(tokens))
"""
CHECK = """
import json
from django.db.models import Sum
from benchmarks.floor_plus.models import Account, Bet, Entry, Wallet, WalletCall
print(json.dumps({
    'bets': Bet.objects.count(), 'unsettled': Bet.objects.filter(settled=False).count(),
    'entries': Entry.objects.count(),
    'wallet_calls_not_acknowledged': WalletCall.objects.exclude(status='acknowledged').count(),
    'money_conserved': Account.objects.aggregate(t=Sum('balance'))['t'] == 16 * 10**12
    and Wallet.objects.aggregate(t=Sum('balance'))['t'] <= 16 * 10**12 + 10**12,
}))
"""


def _env(guarantees: list[str]) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.floor_plus.settings",
        "PYTHONPATH": str(ROOT),
        "FLOOR_PLUS": ",".join(guarantees),
        "FLOOR_PLUS_DB": DATABASE,
    }


def _django(env: dict, *args: str) -> str:
    return subprocess.run(
        [str(PYTHON), "-m", "django", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout


WALLET_SECRET = "floor-plus-wallet-secret"


def _wallet(args):
    """The partner's wallet process, or None when the step does not call one."""
    process = subprocess.Popen(
        [
            str(PYTHON),
            "-m",
            "tests.wallet_server",
            "--port",
            str(args.wallet_port),
            f"--secret={WALLET_SECRET}",
            "--latency-ms",
            str(args.wallet_latency_ms),
            "--initial-balance",
            str(10**12),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    ready = process.stdout.readline().split()
    if ready[:1] != ["ready"]:
        process.terminate()
        raise RuntimeError(f"the wallet server did not start: {ready}")
    return process


def run_step(guarantees: list[str], args) -> dict:
    env = _env(guarantees)
    wallet = None
    if "seamless" in guarantees:
        wallet = _wallet(args)
        env["FLOOR_PLUS_WALLET"] = f"http://127.0.0.1:{args.wallet_port}/wallet"
        env["FLOOR_PLUS_WALLET_SECRET"] = WALLET_SECRET
    psql(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    psql(f"CREATE DATABASE {DATABASE}")
    _django(env, "migrate", "-v", "0", "--noinput")
    tokens = json.loads(_django(env, "shell", "-v", "0", "-c", SETUP))
    server = subprocess.Popen(
        [
            str(PYTHON),
            "-m",
            "gunicorn",
            "benchmarks.floor_plus.wsgi",
            "--bind",
            f"127.0.0.1:{PORT}",
            "--workers",
            "2",
            "--threads",
            "8",
            "--worker-class",
            "gthread",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(100):
            try:
                connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
                connection.request("GET", "/bet/")
                connection.getresponse()
                break
            except OSError:
                time.sleep(0.2)
        wrk_env = {"BENCH_TOKENS": " ".join(tokens), "BENCH_TABLE": "1"}
        _wrk("wrk_rounds.lua", wrk_env, 16, 3)
        roots = {"gunicorn": server.pid, **({"partner wallet": wallet.pid} if wallet else {})}
        before = _cpu_by_role(roots, DATABASE)
        run = _wrk("wrk_rounds.lua", wrk_env, 16, args.seconds)
        after = _cpu_by_role(roots, DATABASE)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
        if wallet is not None:
            wallet.terminate()
            wallet.wait(timeout=20)
    bets = run["rate"] * args.seconds
    cpu = {
        role: round((after.get(role, 0) - before.get(role, 0)) * 1000 / bets, 2)
        for role in ("gunicorn", "postgresql", *(["partner wallet"] if wallet else []))
    }
    check = json.loads(_django(env, "shell", "-v", "0", "-c", CHECK))
    return {"service": "floor" + "".join(f" + {g}" for g in guarantees), **run, "cpu_ms_per_bet": cpu, **check}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--floor", default=str(FLOOR), help="the shared floor's run.sh")
    parser.add_argument(
        "--steps", default=",".join(STEPS[1:]), help="cumulative steps to run after the floor (add ',seamless')"
    )
    parser.add_argument("--last", type=int, default=99, help="run only the last N of the cumulative steps")
    parser.add_argument("--wallet-port", type=int, default=18301, help="the seamless step's partner wallet")
    parser.add_argument("--wallet-latency-ms", type=float, default=1.0)
    args = parser.parse_args()
    require_wrk()
    tempfile.tempdir = None
    for number in range(1, args.passes + 1):
        shared = subprocess.run(["bash", args.floor, str(PYTHON)], capture_output=True, text=True, check=True)
        floor = json.loads(shared.stdout.strip().splitlines()[-1])
        print(json.dumps({"pass": number, "service": "shared floor (run.sh)", **floor}), flush=True)
        base = previous = None
        steps = [""] + [s for s in args.steps.split(",") if s]
        for i in range(len(steps)):
            if i < len(steps) - args.last:
                continue
            step = run_step(steps[1 : i + 1], args)
            base = base or step["rate"]
            step["ratio_to_floor"] = round(step["rate"] / floor["bets_per_s"], 3)
            step["ratio_to_first_step_run"] = round(step["rate"] / base, 3)  # the rebuilt floor, without --last
            if previous:
                step["ratio_to_previous_step"] = round(step["rate"] / previous, 3)
            previous = step["rate"]
            print(json.dumps({"pass": number, **step}), flush=True)


if __name__ == "__main__":
    main()
