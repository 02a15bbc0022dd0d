"""The embedded PostgreSQL and Redis of bin/serve and bin/manage (real servers, under a temporary
var/), their leases, and the checkout's .env."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
import psutil
import psycopg
import pytest
import redis
from dotenv import dotenv_values

from config.embedded import (
    DatabaseUnusable,
    EmbeddedPostgres,
    EmbeddedRedis,
    database_ensure,
    database_prepare,
    dotenv_prepare,
    embedded_servers,
    servers_wanted,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def var():
    """One var/ for the module (initdb runs once), outside pytest's temporary directories: as root,
    PostgreSQL runs as another user, which a pytest session starting meanwhile would lock out of
    them (pytest makes its base directory private)."""
    directory = Path(tempfile.mkdtemp(prefix="casino-war-embedded-"))
    yield directory / "var"
    shutil.rmtree(directory, ignore_errors=True)


def server_pids(var: Path) -> dict[str, int | None]:
    def alive(path: Path, name: str) -> int | None:
        try:
            pid = int(path.read_text().split()[0])
            process = psutil.Process(pid)
        except (FileNotFoundError, ValueError, psutil.NoSuchProcess):
            return None
        return pid if name in process.name() and process.status() != psutil.STATUS_ZOMBIE else None

    return {
        "postgres": alive(var / "postgres" / "postmaster.pid", "postgres"),
        "redis": alive(var / "redis" / "redis.pid", "redis-server"),
    }


def test_the_servers_run_what_production_needs_and_the_last_user_stops_them(var):
    with embedded_servers(postgres=True, redis=True, var=var) as urls:
        started = server_pids(var)
        assert all(started.values())
        with psycopg.connect(urls["DATABASE_URL"].replace("postgres://", "postgresql://", 1)) as connection:
            # The ledger's posting function and guards are PL/pgSQL.
            connection.execute("DO $$ BEGIN PERFORM 1; END $$ LANGUAGE plpgsql")
            assert connection.execute("SELECT current_database()").fetchone() == ("casino_war",)
        assert redis.Redis.from_url(urls["REDIS_URL"]).ping()
        with embedded_servers(postgres=True, redis=True, var=var) as joined:  # bin/manage beside bin/serve
            assert joined == urls
            assert server_pids(var) == started
        assert server_pids(var) == started, "a user leaving stopped the servers another still uses"
    assert server_pids(var) == {"postgres": None, "redis": None}


def test_servers_a_killed_user_left_are_adopted_and_then_stopped(var):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom pathlib import Path\n"
            "from config.embedded import embedded_servers\n"
            "with embedded_servers(postgres=True, redis=True, var=Path(sys.argv[1])) as urls:\n"
            "    print(urls, flush=True); time.sleep(120)\n",
            str(var),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().startswith("{")
        left = server_pids(var)
        holder.send_signal(signal.SIGKILL)  # no clean-up: its leases stay behind
        holder.wait()
    finally:
        holder.kill()
    with embedded_servers(postgres=True, redis=True, var=var):
        assert server_pids(var) == left, "a running server must be adopted, not started twice"
    assert server_pids(var) == {"postgres": None, "redis": None}


def test_stale_pid_files_do_not_stop_a_start(var):
    with embedded_servers(postgres=True, redis=True, var=var):
        pass
    # pid files naming a live process that is not the server (a pid reused after a crash)
    (var / "postgres" / "postmaster.pid").write_text(f"{os.getpid()}\n{var / 'postgres'}\n")
    (var / "redis" / "redis.pid").write_text(f"{os.getpid()}\n")
    with embedded_servers(postgres=True, redis=True, var=var) as urls:
        assert all(server_pids(var).values())
        assert redis.Redis.from_url(urls["REDIS_URL"]).ping()
    assert server_pids(var) == {"postgres": None, "redis": None}


def test_redis_takes_another_port_when_its_own_is_taken(var):
    with embedded_servers(postgres=False, redis=True, var=var) as first:
        pass
    port = int(first["REDIS_URL"].rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        with embedded_servers(postgres=False, redis=True, var=var) as second:
            assert second["REDIS_URL"] != first["REDIS_URL"]
            assert redis.Redis.from_url(second["REDIS_URL"]).ping()


def test_only_the_servers_the_environment_does_not_name_are_embedded():
    assert servers_wanted({}) == {"postgres": True, "redis": True}
    assert servers_wanted({"DATABASE_URL": "postgres://db/x", "REDIS_URL": ""}) == {"postgres": False, "redis": True}
    assert servers_wanted({"REDIS_URL": "redis://r/0"}) == {"postgres": True, "redis": False}


def test_dotenv_gets_a_secret_once_debug_and_the_servers_addresses(tmp_path):
    path = tmp_path / ".env"
    first = dotenv_prepare(settings={"DATABASE_URL": "postgres://a/b", "REDIS_URL": "redis://127.0.0.1:1/0"}, path=path)
    assert len(first["SECRET_KEY"]) >= 50 and first["DEBUG"] == "true"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600, "the secret key must be readable by its owner only"
    with path.open("a") as handle:
        handle.write("LOG_LEVEL=DEBUG\n")
    second = dotenv_prepare(settings={"REDIS_URL": "redis://127.0.0.1:2/0"}, path=path)
    assert second["SECRET_KEY"] == first["SECRET_KEY"], "sessions and signed links must outlive a restart"
    assert second["REDIS_URL"] == "redis://127.0.0.1:2/0" and second["DATABASE_URL"] == "postgres://a/b"
    assert second["LOG_LEVEL"] == "DEBUG"
    assert dotenv_values(path) == second


def settings_read(tmp_path: Path, *, dotenv: str | None, **environ: str) -> list[str]:
    """SECRET_KEY, DEBUG and the database host as a copy of the settings module beside `dotenv`
    sees them, with `environ` instead of the test run's own SECRET_KEY, DEBUG and URLs."""
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "__init__.py").write_text("")
    (tmp_path / "config" / "settings.py").write_text((ROOT / "config" / "settings.py").read_text())
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv)
    unset = {"SECRET_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL", "VAR_DIR"}
    env = {key: value for key, value in os.environ.items() if key not in unset} | environ
    script = "from config import settings as s; print(s.SECRET_KEY, s.DEBUG, s.DATABASES['default']['HOST'])"
    read = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    return read.stdout.split()


def test_settings_read_dotenv_and_the_environment_wins(tmp_path):
    dotenv = "SECRET_KEY=from-dotenv\nDEBUG=true\nDATABASE_URL=postgres://u@dotenv-host/db\n"
    assert settings_read(tmp_path, dotenv=dotenv) == ["from-dotenv", "True", "dotenv-host"]
    assert settings_read(tmp_path, dotenv=dotenv, DATABASE_URL="postgres://u@environment-host/db") == [
        "from-dotenv",
        "True",
        "environment-host",
    ]


def test_without_a_database_url_settings_name_the_embedded_servers_socket(tmp_path):
    assert settings_read(tmp_path, dotenv=None, DEBUG="true", SECRET_KEY="k") == [
        "k",
        "True",
        str(tmp_path / "var" / "postgres"),
    ]


def test_server_classes_stop_nothing_when_nothing_runs(tmp_path):
    EmbeddedPostgres(tmp_path).stop()
    EmbeddedRedis(tmp_path).stop()


def _url_of_database(name: str) -> str:
    """DATABASE_URL (bin/test's server: local or embedded) with another database name."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{name}"))


def test_a_database_url_naming_a_missing_database_gets_it_created():
    name = f"cw_created_{uuid.uuid4().hex[:12]}"
    url = _url_of_database(name)
    try:
        said = []
        database_prepare({"DATABASE_URL": url}, say=lambda *args, **kwargs: said.append(args[0]))
        assert said == [f"Created the database '{name}' that DATABASE_URL names."]
        assert database_ensure(url) is False  # there now: nothing to do
        with psycopg.connect(conninfo=url.replace("postgres://", "postgresql://", 1)) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == (name,)
    finally:
        config = dj_database_url.parse(url)
        with psycopg.connect(
            host=config["HOST"] or None,
            port=config["PORT"] or None,
            user=config["USER"],
            dbname="postgres",
            autocommit=True,
        ) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


def test_a_database_server_that_cannot_be_used_is_one_line(tmp_path):
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DatabaseUnusable) as refused:
        database_prepare({"DATABASE_URL": f"postgres://postgres@127.0.0.1:{port}/casino_war"})
    # A SystemExit: bin/manage (config.embedded) prints its one line and exits 1, bin/serve says it too.
    assert isinstance(refused.value, SystemExit) and "\n" not in str(refused.value)
    assert str(refused.value).startswith(f"DATABASE_URL: PostgreSQL at 127.0.0.1:{port} cannot be used (")
