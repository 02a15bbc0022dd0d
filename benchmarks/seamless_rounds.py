"""Seamless-wallet rounds per second over HTTP, beside the transfer wallet's, in one invocation.

Each pass runs benchmarks/http_rounds.py's partner path three times on the same stack (gunicorn,
a Celery worker and beat, PostgreSQL, Redis; a fresh database each time), under the same load
(wrk, 16 connections, each its own partner player, requests signed in advance):

1. a transfer-wallet partner (money moved into our wallets first), as http_rounds runs it;
2. a seamless partner whose wallet is `python -m tests.wallet_server`, a process of its own on
   loopback, answering each call after ~1 ms;
3. the same with a slow wallet: 50 ms a call;
4. the slow wallet again with DATABASE_POOL=true (a pool of --pool-size connections per gunicorn
   process): a request waiting on the wallet gives its connection back for the wait.

Per run: rounds/s and p50/p99, non-2xx answers, settlement lag (resolved -> settled, which for a
seamless round is its credit acknowledged), that every round was settled, ledger_verify; for the
seamless runs also the wallet's calls by answer, the credits it acknowledged (one per round), and
that its balances equal what our rounds say (funds - stakes - raises + payouts, per player).
Sampled every 50 ms during every measured run: the backends of the service's database that were
`idle in transaction` (a transaction left open while its thread did something else, such as
waiting for a wallet): with the slow wallet that figure would be about rounds/s x 0.05 if a
transaction were held across the debit; how many wait for a lock; and how many connections the
database has (web, worker, beat), which the pooled run keeps below the 16 requests in flight.

    python benchmarks/seamless_rounds.py [--seconds 20] [--passes 1] [--latencies 1,50] [--pool-latencies 50]

Ports, Redis and PostgreSQL databases: BENCH_PORT, BENCH_REDIS_DB, BENCH_DATABASE (http_rounds'),
and --wallet-port for the wallet.
"""

from __future__ import annotations

import collections
import contextlib
import json
import statistics
import subprocess
import sys
import threading
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import psycopg  # noqa: E402

from benchmarks import http_rounds  # noqa: E402
from benchmarks.load import FUNDS  # noqa: E402
from tests.wallet_server import RemoteWallet  # noqa: E402

SAMPLE_EVERY_S = 0.05

# What our own records say each partner player's wallet must hold once everything settled: what it
# started with, less every stake and raise of its rounds, plus every payout (API.md: a round's
# credit is its payout). Rounds refused by the wallet are not rounds: they moved nothing. And the
# ledger's account of the seamless partner: what its wallet paid in less what it was paid back.
OURS = """
import json
from django.db.models import F, Sum
from casino.models import Round
from ledger.models import Account
rows = (Round.objects.filter(player__partner__isnull=False).values('player__external_id')
        .annotate(staked=Sum(F('main_bet') + F('tie_bet') + F('raise_bet')), paid=Sum('payout')))
print(json.dumps({
    'players': {r['player__external_id']: {'staked': r['staked'], 'paid': r['paid'] or 0} for r in rows},
    'seamless_account': Account.objects.filter(kind='partner_seamless').aggregate(total=Sum('balance'))['total'] or 0,
}))
"""


@contextlib.contextmanager
def partner_wallet(setup: dict, *, port: int, latency_ms: float):
    """The partner's wallet in a process of its own, with the partner's secret from the setup."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.wallet_server",
            "--port",
            str(port),
            f"--secret={setup['partner_secret']}",
            "--latency-ms",
            str(latency_ms),
            "--initial-balance",
            str(FUNDS),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready = process.stdout.readline().split()
        if ready[:1] != ["ready"]:
            raise RuntimeError(f"the wallet server did not start: {ready}")
        yield types.SimpleNamespace(pid=process.pid, remote=RemoteWallet(ready[1]), latency_ms=latency_ms)
    finally:
        process.terminate()
        process.wait(timeout=20)


@contextlib.contextmanager
def open_transactions(env: dict):
    """Sample the service database's backends while the load runs: how many sit `idle in
    transaction` (and after which statement), how many are active, and how many of those wait for
    a lock (and in which statement)."""
    figures: dict = {}
    samples: list[tuple[int, int, int, int]] = []
    idle_after: collections.Counter = collections.Counter()
    waiting_in: collections.Counter = collections.Counter()
    stop = threading.Event()

    def sample() -> None:
        with psycopg.connect(env["DATABASE_URL"].replace("postgres://", "postgresql://", 1), autocommit=True) as db:
            while not stop.wait(SAMPLE_EVERY_S):
                rows = db.execute(
                    "SELECT state, wait_event_type, left(regexp_replace(query, '\\s+', ' ', 'g'), 90)"
                    " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).fetchall()
                idle = [q for state, _, q in rows if state == "idle in transaction"]
                locked = [q for state, wait, q in rows if state == "active" and wait == "Lock"]
                samples.append((len(idle), sum(state == "active" for state, _, _ in rows), len(locked), len(rows)))
                idle_after.update(idle)
                waiting_in.update(locked)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield figures
    finally:
        stop.set()
        sampler.join(timeout=10)
        idle = [s[0] for s in samples]
        figures["idle_in_transaction"] = {
            "mean": round(statistics.fmean(idle), 2) if idle else None,
            "max": max(idle, default=None),
            "samples": len(idle),
            "after": dict(idle_after.most_common(3)),
        }
        figures["active_backends_mean"] = round(statistics.fmean(s[1] for s in samples), 2) if samples else None
        figures["backends"] = {  # every connection to the service's database (web, worker, beat)
            "mean": round(statistics.fmean(s[3] for s in samples), 2) if samples else None,
            "max": max((s[3] for s in samples), default=None),
        }
        figures["waiting_for_a_lock"] = {
            "mean": round(statistics.fmean(s[2] for s in samples), 2) if samples else None,
            "in": dict(waiting_in.most_common(3)),
        }


def wallet_checks(env: dict, setup: dict, wallet) -> dict:
    """Once everything settled: the wallet's books against ours."""
    state = wallet.remote.state()
    calls = wallet.remote.calls()
    books = json.loads(http_rounds._manage_shell(env, OURS))
    theirs = {player: balance for (player, _), balance in wallet.remote.balances().items()}
    mismatched = {}
    for player, rounds in books["players"].items():
        ours = FUNDS - rounds["staked"] + rounds["paid"]
        if theirs.get(player, FUNDS) != ours:
            mismatched[player] = {"wallet": theirs.get(player, FUNDS), "ours": ours}
    wallet_net = sum(balance - FUNDS for balance in theirs.values())
    repeats = collections.Counter(call["name"] for call in calls if call["repeat"])
    credited: dict[str, set[str]] = {}
    for call in calls:
        if call["name"] == "credit" and call["status"] == 200:
            credited.setdefault(call["body"]["round"], set()).add(call["body"]["transaction_id"])
    return {
        "wallet_latency_ms": wallet.latency_ms,
        "wallet_calls": state["calls"],
        "credits_acknowledged": len(credited),
        "repeated_calls": dict(repeats),  # a transaction id sent again after the wallet had answered it
        "rounds_credited_twice": sum(len(ids) > 1 for ids in credited.values()),
        "wallet_balances_equal_ours": not mismatched and bool(books["players"]),
        "wallet_balance_mismatches": dict(list(mismatched.items())[:5]),
        # The partner's wallet moved, in total, what our ledger's account of that partner says.
        "wallet_net_equals_ledger": wallet_net == books["seamless_account"],
        "wallet_net": wallet_net,
        "ledger_seamless_account": books["seamless_account"],
    }


def main() -> None:
    parser = http_rounds.arguments(__doc__)
    parser.set_defaults(passes=1)
    parser.add_argument("--latencies", default="1,50", help="the partner wallet's latency in each seamless run (ms)")
    parser.add_argument("--wallet-port", type=int, default=18201)
    parser.add_argument("--no-transfer", action="store_true", help="only the seamless runs")
    parser.add_argument(
        "--pool-latencies",
        default="50",
        help="latencies (ms) also run with DATABASE_POOL=true: a request waiting on the wallet "
        "holds no database connection",
    )
    parser.add_argument("--pool-size", type=int, default=4, help="DATABASE_POOL_SIZE, per gunicorn process")
    parser.add_argument(
        "--before-root",
        default="",
        help="another checkout (with its .venv) run beside this one, each run of a pass first "
        "there (odd passes) or last (even passes): before and after in one invocation",
    )
    args = parser.parse_args()
    seamless = [(float(ms), False) for ms in args.latencies.split(",") if ms]
    seamless += [(float(ms), True) for ms in args.pool_latencies.split(",") if ms]
    roots = [("", http_rounds.CODE)]
    if args.before_root:
        roots.insert(0, ("before: ", Path(args.before_root).resolve()))

    runs: list[dict] = []
    for number in range(1, args.passes + 1):
        for label, code in roots if number % 2 else roots[::-1]:
            http_rounds.CODE, http_rounds.PYTHON = code, code / ".venv" / "bin" / "python"
            _pass(runs, number, args, seamless, label)
    _summary(runs)


def _pass(runs: list, number: int, args, seamless: list, label: str) -> None:
    """One pass's runs of one checkout: the transfer wallet, then each seamless configuration."""
    if not args.no_transfer:
        runs.append(
            {
                "pass": number,
                **http_rounds.run_ours("partner", args, name=f"{label}transfer wallet", during=open_transactions),
            }
        )
        print(json.dumps(runs[-1]), flush=True)
    for latency_ms, pooled in seamless:
        url = f"http://127.0.0.1:{args.wallet_port}/wallet"
        setup_code = (
            "import json; from benchmarks.load import bench_setup; "
            f"print(json.dumps(bench_setup(players=0, partner_players={args.clients}, wallet_url={url!r})))"
        )
        extra_env = {"OUTBOUND_ALLOW_PRIVATE": "true"}
        if pooled:
            extra_env |= {"DATABASE_POOL": "true", "DATABASE_POOL_SIZE": str(args.pool_size)}
        runs.append(
            {
                "pass": number,
                **http_rounds.run_ours(
                    "partner",
                    args,
                    name=f"{label}seamless, wallet {latency_ms:g} ms" + (", pooled" if pooled else ""),
                    extra_env=extra_env,
                    setup_code=setup_code,
                    during=open_transactions,
                    checks=wallet_checks,
                    companion=lambda setup, ms=latency_ms: partner_wallet(setup, port=args.wallet_port, latency_ms=ms),
                ),
            }
        )
        print(json.dumps(runs[-1]), flush=True)


def _summary(runs: list) -> None:
    summary = {}
    for run in runs:
        row = {
            "rounds_per_s": run["rate"],
            "p50_ms": run["p50_ms"],
            "p99_ms": run["p99_ms"],
            "non_2xx": run["non_2xx"],
            "socket_errors": run["socket_errors"],
            "rounds": run["rounds"],
            "settled": run["settled"],
            "lag_p50_s": run["lag_s"]["p50"],
            "lag_p99_s": run["lag_s"]["p99"],
            "ledger_verifies": run["ledger_verifies"],
            "idle_in_transaction_mean_max": [run["idle_in_transaction"]["mean"], run["idle_in_transaction"]["max"]],
            "waiting_for_a_lock_mean": run["waiting_for_a_lock"]["mean"],
            "backends_mean_max": [run["backends"]["mean"], run["backends"]["max"]],
        }
        if "wallet_calls" in run:
            row |= {
                key: run[key]
                for key in (
                    "credits_acknowledged",
                    "repeated_calls",
                    "rounds_credited_twice",
                    "wallet_balances_equal_ours",
                    "wallet_net_equals_ledger",
                    "wallet_calls",
                )
            }
        summary[f"{run['service']} (pass {run['pass']})"] = row
    # Per configuration, the median of its passes; each seamless one beside its checkout's transfer
    # wallet in the same pass (rounds/s ratio, p99 ratio), and the median of those ratios.
    medians = {}
    by_name: dict[str, list[dict]] = collections.defaultdict(list)
    for run in runs:
        by_name[run["service"]].append(run)
    for name, named in by_name.items():
        row = {key: statistics.median(r[key] for r in named) for key in ("rate", "p99_ms")}
        row["lag_p99_s"] = statistics.median(r["lag_s"]["p99"] for r in named)
        transfer = name.replace(name.split("before: ")[-1], "transfer wallet")
        if transfer != name and transfer in by_name:
            paired = [(r, t) for r in named for t in by_name[transfer] if t["pass"] == r["pass"]]
            row["rate_vs_transfer"] = round(statistics.median(r["rate"] / t["rate"] for r, t in paired), 3)
            row["p99_vs_transfer"] = round(statistics.median(r["p99_ms"] / t["p99_ms"] for r, t in paired), 3)
        medians[name] = row
    print(json.dumps({"summary": summary, "medians": medians}, indent=2))


if __name__ == "__main__":
    main()
