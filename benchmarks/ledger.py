"""Journal entries per second through the ledger's service layer on PostgreSQL, with 1 and 16
concurrent writers (processes), spread over many wallets and all on one hot wallet, printed beside
pgbench's tpcb-like TPS on the same server in the same run.

    python benchmarks/ledger.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks._support import fresh_database, pgbench_tps


def _setup(url: str) -> None:
    os.environ.update(DATABASE_URL=url, DEBUG="false", SECRET_KEY="bench-" + "x" * 50, ALLOWED_HOSTS="*")
    os.environ["REDIS_URL"] = ""  # no broker; set (though empty) so that a checkout's .env does not name one
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _writer(args) -> int:
    url, writer, start_at, seconds, hot = args
    _setup(url)
    from accounts.models import Player
    from core.actors import Actor
    from ledger.models import EntryKind
    from ledger.services import Line, house_account, ledger_post, player_accounts_open

    player = Player.objects.get(user__username="hot" if hot else f"w{writer}")
    wallet, in_play = player_accounts_open(player=player)
    actor = Actor.system("bench")
    done = 0
    time.sleep(max(0.0, start_at - time.time()))  # every writer starts at the same instant, set up
    deadline = start_at + seconds
    while time.time() < deadline:
        key = f"bench:{hot}:{writer}:{done}"
        if hot:  # every writer on one wallet: the wallet's row lock serialises them
            lines = [Line(wallet, -1), Line(house_account(currency="EUR", spread_by=key), 1)]
        else:
            lines = [Line(wallet, -1), Line(in_play, 1)] if done % 2 == 0 else [Line(in_play, -1), Line(wallet, 1)]
        ledger_post(idempotency_key=key, kind=EntryKind.STAKE, lines=lines, actor=actor)
        done += 1
    return done


def run(url: str, writers: int, seconds: float, hot: bool) -> float:
    """Entries per second while all `writers` run together (their start-up is not timed)."""
    start_at = time.time() + 3 + writers * 0.5
    with mp.get_context("spawn").Pool(writers) as pool:
        counts = pool.map(_writer, [(url, w, start_at, seconds, hot) for w in range(writers)])
    return sum(counts) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    url = fresh_database("bench_ledger")
    _setup(url)
    from accounts.services import player_create
    from core.actors import Actor
    from ledger.services import wallet_deposit

    for name in ["hot", *(f"w{n}" for n in range(16))]:
        player = player_create(username=name, password=None)
        wallet_deposit(player=player, amount=10**12, idempotency_key=f"fund:{name}", actor=Actor.system("bench"))
    from django.db import connection

    connection.close()
    figures = {
        "entries_per_s": {
            "1_writer": round(run(url, 1, args.seconds, hot=False)),
            "16_writers_spread": round(run(url, 16, args.seconds, hot=False)),
            "16_writers_hot_wallet": round(run(url, 16, args.seconds, hot=True)),
        },
        "pgbench_tpcb_like_tps": {
            "1_client": round(pgbench_tps(1, int(args.seconds))),
            "16_clients": round(pgbench_tps(16, int(args.seconds))),
        },
    }
    figures["ratio_16_spread_to_pgbench_16"] = round(
        figures["entries_per_s"]["16_writers_spread"] / figures["pgbench_tpcb_like_tps"]["16_clients"], 3
    )
    from ledger.verification import ledger_verify

    figures["ledger_verifies_after"] = ledger_verify().ok
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
