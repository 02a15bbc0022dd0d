"""`bin/test`: ruff (lint and format), the import contracts, the message catalogues, the deploy check and pytest, on a
real PostgreSQL and Redis, in parallel workers.

The servers, each on its own:
* the one DATABASE_URL / REDIS_URL names, when set;
* else the local one, PostgreSQL on 127.0.0.1:5432 (user postgres, trust) or Redis on
  127.0.0.1:6379, when it answers;
* else the embedded one `bin/serve` runs (config/embedded.py: PostgreSQL and Redis from PyPI, data
  under var/), started for the run and stopped after it (unless a `bin/serve` still uses it).

pytest runs in TEST_WORKERS workers (`pytest -n`; default: one per core and one
more, since much of the suite waits on browsers, servers and sleeps), unless the arguments
choose (`-n 0`, `-n 4`, `-p no:xdist`); each worker has a database and a Redis database of its own
(tests/isolation.py). Beyond Python it needs Chromium (/usr/bin/chromium) for the browser tests and
GNU gettext for the catalogues: it says what is missing and what is skipped without it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
LOCAL_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/casino_war"
LOCAL_REDIS_URL = "redis://127.0.0.1:6379/15"
TEST_REDIS_DATABASE = 15  # and the ones below it, one per worker (tests/isolation.py)
CHROMIUM = Path("/usr/bin/chromium")


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def servers_chosen(environ=os.environ, answers=_answers) -> dict[str, str | None]:
    """{"DATABASE_URL": url or None, "REDIS_URL": url or None}: None where the embedded server runs."""
    chosen: dict[str, str | None] = {}
    for setting, local, port in (("DATABASE_URL", LOCAL_DATABASE_URL, 5432), ("REDIS_URL", LOCAL_REDIS_URL, 6379)):
        if environ.get(setting):
            chosen[setting] = environ[setting]
        else:
            chosen[setting] = local if answers("127.0.0.1", port) else None
    return chosen


def redis_test_url(url: str) -> str:
    """The embedded Redis's URL (database 0, bin/serve's) on the tests' database."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{TEST_REDIS_DATABASE}"))


def _reachable(env: dict[str, str]) -> str | None:
    """Why PostgreSQL or Redis cannot be used, or None."""
    import psycopg
    import redis
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(env["DATABASE_URL"].replace("postgres://", "postgresql://", 1))
        psycopg.connect(**{**params, "dbname": "postgres", "connect_timeout": 5}).close()
        redis.Redis.from_url(env["REDIS_URL"], socket_connect_timeout=5).ping()
    except Exception as exc:  # a clear message beats a wall of test errors
        return str(exc).strip()
    return None


def missing_tools() -> list[str]:
    notes = []
    if not CHROMIUM.exists():
        notes.append("Chromium (/usr/bin/chromium; Debian: apt-get install chromium): the browser tests are skipped")
    if not (shutil.which("msgfmt") and shutil.which("xgettext")):
        notes.append("GNU gettext (Debian: apt-get install gettext): the catalogues are neither compiled nor checked")
    return notes


def _workers_chosen(args: list[str]) -> bool:
    return any(arg in ("-n", "--numprocesses", "no:xdist") or arg.startswith(("-n", "--numprocesses=")) for arg in args)


def pytest_arguments(args: list[str], environ=os.environ) -> list[str]:
    if not any(arg.startswith("--durations") for arg in args):
        args = ["--durations", "15", *args]  # the slowest tests, where time goes
    if _workers_chosen(args):
        return args
    workers = environ.get("TEST_WORKERS") or str((os.cpu_count() or 1) + 1)
    # Work stealing: each worker starts on a contiguous share of the tests (a module's tests, and its
    # module fixtures such as a bin/serve on a fresh copy, mostly on one worker) and takes half of
    # another's remaining share when it runs out. Not loadscope/loadgroup: they key tests by node id,
    # and schemathesis's tests of every operation share one, so all but one would not run.
    return ["-n", workers, "--dist", "worksteal", *args] if workers not in ("0", "1") else args


def _step(title: str, command: list[str], env: dict[str, str]) -> None:
    print(f"== {title}", flush=True)
    result = subprocess.run(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
    if result.returncode:
        sys.exit(result.returncode)


def main(args: list[str]) -> int:
    started = time.monotonic()
    for note in missing_tools():
        print(f"bin/test: without {note}.", file=sys.stderr)
    chosen = servers_chosen()
    with ExitStack() as stack:
        embedded = {"postgres": chosen["DATABASE_URL"] is None, "redis": chosen["REDIS_URL"] is None}
        if any(embedded.values()):
            from config.embedded import embedded_servers

            print(
                f"== embedded servers: {', '.join(name for name, wanted in embedded.items() if wanted)} "
                "(nothing on 127.0.0.1:5432/6379 and no DATABASE_URL/REDIS_URL)",
                flush=True,
            )
            urls = stack.enter_context(embedded_servers(**embedded))
            chosen["DATABASE_URL"] = chosen["DATABASE_URL"] or urls["DATABASE_URL"]
            chosen["REDIS_URL"] = chosen["REDIS_URL"] or redis_test_url(urls["REDIS_URL"])
        env = {
            **os.environ,
            **chosen,
            "ALLOWED_HOSTS": os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver"),
            "DEBUG": "false",
            "SECRET_KEY": os.environ.get("SECRET_KEY", f"test-only-secret-key-{0:040d}"),
            "SECURE_SSL_REDIRECT": "false",
        }
        problem = _reachable(env)
        if problem:
            print(
                f"bin/test needs PostgreSQL and Redis ({problem}). Start them, or set DATABASE_URL/REDIS_URL.",
                file=sys.stderr,
            )
            return 1
        _step("ruff", ["ruff", "check", "."], env)
        _step("ruff format", ["ruff", "format", "--check", "."], env)  # the one layout: no `# fmt: skip`
        _step("import contracts", ["lint-imports"], env)
        if shutil.which("msgfmt"):
            _step(
                "message catalogues",
                [
                    sys.executable,
                    "manage.py",
                    "compilemessages",
                    "--ignore",
                    ".venv/*",
                    "--ignore",
                    "var/*",
                    "--verbosity",
                    "0",
                ],
                env,
            )
        # The deploy check of the settings gets a fresh key (it refuses every key published in the
        # repository, the tests' too) and an empty database (it refuses demo passwords, which a
        # bin/serve database has).
        deploy = {
            **env,
            "SECRET_KEY": secrets.token_urlsafe(50),
            "DATABASE_URL": "sqlite://:memory:",
            "ALLOWED_HOSTS": "casino.example",
            "SECURE_SSL_REDIRECT": "true",
        }
        _step("deploy check", [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], deploy)
        print("== pytest", flush=True)
        code = subprocess.run(
            [sys.executable, "-m", "pytest", *pytest_arguments(args)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL
        ).returncode
    print(f"bin/test: {time.monotonic() - started:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
