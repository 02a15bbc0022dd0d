"""Shared by the database benchmarks: a scratch PostgreSQL database and pgbench beside it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# BENCH_PG_PORT: another PostgreSQL on this host (e.g. one with pg_stat_statements, for profiling)
PG = {"host": "127.0.0.1", "port": os.environ.get("BENCH_PG_PORT", "5432"), "user": "postgres"}


def require_wrk() -> None:
    """The HTTP benchmarks drive load with wrk (C): Python clients would eat the CPU the server needs."""
    if shutil.which("wrk") is None:
        sys.exit("this benchmark needs wrk: apt-get install -y wrk")


def psql(sql: str, db: str = "postgres") -> None:
    subprocess.run(["psql", "-h", PG["host"], "-p", PG["port"], "-U", PG["user"], "-d", db, "-qc", sql], check=True)


QUIET_AFTER_CHECKPOINT_S = 2


def database_quiet() -> None:
    """Before each measured service: a checkpoint, then a short pause, so that no run pays for the
    dirty pages and the WAL of the run before it (whichever service that was)."""
    psql("CHECKPOINT")
    time.sleep(QUIET_AFTER_CHECKPOINT_S)


def fresh_database(name: str, root: Path = ROOT) -> str:
    psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(f"CREATE DATABASE {name}")
    url = f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{name}"
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 50, "ALLOWED_HOSTS": "*"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=root, env=env, check=True)
    return url


def pgbench_tps(clients: int, seconds: int = 10, scale: int = 10) -> float:
    """pgbench's built-in tpcb-like transactions per second, on its own database."""
    psql("DROP DATABASE IF EXISTS bench_pgbench WITH (FORCE)")
    psql("CREATE DATABASE bench_pgbench")
    base = ["-h", PG["host"], "-p", PG["port"], "-U", PG["user"]]
    subprocess.run(["pgbench", *base, "-i", "-q", "-s", str(scale), "bench_pgbench"], check=True, capture_output=True)
    out = subprocess.run(
        [
            "pgbench",
            *base,
            "-b",
            "tpcb-like",
            "-c",
            str(clients),
            "-j",
            str(min(clients, 2)),
            "-T",
            str(seconds),
            "bench_pgbench",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    match = re.search(r"tps = ([\d.]+)", out)
    return float(match.group(1)) if match else float("nan")
