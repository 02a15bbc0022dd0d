"""How late a tie's decision deadline is kept with beat down and nobody playing: a Celery worker
(as the service runs it, no beat) and ties placed one by one, nothing else; each tie asks the
worker for the house rule once the window of its deadline has closed (casino/services/rounds.py
`round_deadline_enqueue`).
Lateness is `decided_at - decision_deadline` of each round, in passes of `--ties` ties.

    python benchmarks/deadlines.py [--ties 60] [--passes 3] [--timeout-s 2]

It needs PostgreSQL on 127.0.0.1:5432 and Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/13);
it makes a scratch database (BENCH_DB, default `bench_deadlines`). docs/RELIABILITY.md has the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks._support import fresh_database  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ties", type=int, default=60, help="ties per pass")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--timeout-s", type=int, default=2, help="the table's decision time")
    args = parser.parse_args()

    url = fresh_database(os.environ.get("BENCH_DB", "bench_deadlines"))
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
        "DEBUG": "false",
        "SECRET_KEY": "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    os.environ.update(env)
    import django

    django.setup()
    import redis
    from django.utils import timezone

    from accounts.services import player_create
    from casino.engine import shoe_cards
    from casino.models import Round, RoundStatus, SeedPair, Table
    from casino.services.fairness import seed_pair_active
    from casino.services.rounds import round_place
    from core.actors import Actor
    from ledger.services import wallet_deposit

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()  # no message of an earlier run
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--concurrency",
            "2",
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(8)  # the worker starts (Django, the pool)
        table = Table.objects.create(
            name="Deadlines",
            min_bet=100,
            max_bet=100_000,
            bet_step=100,
            max_tie_bet=0,
            decision_timeout_s=args.timeout_s,
        )
        players = []
        for n in range(args.ties):
            player = player_create(username=f"deadline{n}", password=None)
            wallet_deposit(player=player, amount=10**9, idempotency_key=f"fund{n}", actor=Actor.system("bench"))
            players.append(player)

        def tie_next(player) -> None:
            pair = seed_pair_active(player=player)
            for n in range(10_000):
                cards = shoe_cards(
                    server_seed=pair.server_seed, client_seed=f"tie-{n}", nonce=pair.next_nonce, decks=6, cards=2
                )
                if cards[0].rank == cards[1].rank:
                    SeedPair.objects.filter(pk=pair.pk).update(client_seed=f"tie-{n}")
                    return

        passes = []
        for number in range(1, args.passes + 1):
            ties = []
            for player in players:
                tie_next(player)
                placed = round_place(player=player, table_id=table.pk, main_bet=100, actor=Actor.player(player))
                assert placed.status == RoundStatus.AWAITING_DECISION
                ties.append(placed.pk)
                time.sleep(random.uniform(0.02, 0.1))  # one by one, as players would
            time.sleep(args.timeout_s + 5)  # every deadline passed, and then some: nothing else runs meanwhile
            rounds = list(Round.objects.filter(pk__in=ties))
            late = [(r.decided_at - r.decision_deadline).total_seconds() for r in rounds if r.decided_at is not None]
            undecided = sum(r.status == RoundStatus.AWAITING_DECISION for r in rounds)
            passes.append(
                {
                    "pass": number,
                    "ties": len(ties),
                    "undecided": undecided,
                    "lateness_s": {
                        "min": round(min(late), 3),
                        "p50": round(statistics.median(late), 3),
                        "p99": round(percentile(late, 0.99), 3),
                        "max": round(max(late), 3),
                    },
                }
            )
            print(json.dumps(passes[-1]), flush=True)
        p99s = sorted(p["lateness_s"]["p99"] for p in passes)
        print(
            json.dumps(
                {
                    "median_of_pass_p99_s": p99s[len(p99s) // 2],
                    "beat": "not running",
                    "at": timezone.now().isoformat(timespec="seconds"),
                }
            )
        )
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()


if __name__ == "__main__":
    main()
