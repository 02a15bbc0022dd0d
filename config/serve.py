"""`bin/serve`: the whole service in one terminal, as production runs it.

Starts (or joins) the embedded PostgreSQL and Redis unless DATABASE_URL/REDIS_URL are set,
writes the checkout's `.env`, migrates, loads the demo data, then runs the Celery worker, Celery
beat and the web server side by side, each in a session of its own (a Ctrl-C reaches this
supervisor only, which stops them in order) and, on Linux, told to exit if the supervisor dies.

A worker or beat that exits is started again: after 1 s, doubling up to 30 s while it keeps
exiting within a minute of its start. Celery restarts its own pool processes, but nothing in
Celery restarts the worker's main process (`celery multi` only starts and stops), hence this loop.
When the web server exits, or on Ctrl-C, SIGTERM or SIGHUP, everything stops: web, beat, worker,
then Redis and PostgreSQL (unless a `bin/manage` is still using them).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from config.embedded import (
    ROOT,
    DatabaseUnusable,
    database_prepare,
    dotenv_prepare,
    embedded_servers,
    servers_wanted,
    var_dir,
)

RESTART_DELAY_S = (1.0, 30.0)  # first delay, longest delay
STABLE_AFTER_S = 60.0  # a process that ran this long before exiting restarts after the first delay again
STOP_TIMEOUT_S = 15.0
PR_SET_PDEATHSIG = 1


class Stop(Exception):
    """SIGTERM or SIGHUP: stop everything, as on Ctrl-C."""


def _raise_stop(signum, frame):
    raise Stop(signal.Signals(signum).name)


_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def _exit_with_parent(parent: int):
    """Runs in the child before exec (Linux): a SIGTERM when the supervisor dies, even by `kill -9`."""

    def prepare() -> None:
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() != parent:  # the supervisor died before prctl took effect
                os._exit(1)

    return prepare


@dataclass
class Child:
    """One process of the service; `log` None writes to the terminal."""

    name: str
    command: list[str]
    log: Path | None = None
    restart: bool = True
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    delay: float = RESTART_DELAY_S[0]
    restart_at: float | None = None
    restarts: int = 0
    _output: object = field(default=None, repr=False)

    def start(self, env: dict[str, str]) -> None:
        if self.log is not None and self._output is None:
            self._output = open(self.log, "a", buffering=1)  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._output,
            stderr=subprocess.STDOUT if self._output else None,
            start_new_session=True,
            preexec_fn=_exit_with_parent(os.getpid()),
        )
        self.started_at = time.monotonic()
        self.restart_at = None

    def signal_session(self, signum: int) -> None:
        """The child and every process of its session (a Celery worker's pool processes)."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signum)

    def stop(self, deadline: float) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()  # a Celery worker then stops its pool itself (warm shutdown)
            try:
                self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.signal_session(signal.SIGKILL)  # what it left behind
        if self._output is not None:
            self._output.close()
            self._output = None


class Supervisor:
    """Runs the children until the one with `restart=False` exits or a signal stops it all."""

    def __init__(self, children: list[Child], env: dict[str, str], say=print):
        self.children = children
        self.env = env
        self.say = say

    def start(self) -> None:
        for child in self.children:
            child.start(self.env)

    def check(self) -> int | None:
        """One look at every child: restart the ones that exited; the exit code of a child that
        must not be restarted (the web server), if it exited."""
        now = time.monotonic()
        for child in self.children:
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.restarts += 1
                    child.start(self.env)
                continue
            code = child.process.poll()
            if code is None:
                continue
            if not child.restart:
                return code
            child.signal_session(signal.SIGKILL)  # what it left behind (a worker's pool processes)
            if now - child.started_at >= STABLE_AFTER_S:
                child.delay = RESTART_DELAY_S[0]
            self.say(
                f"bin/serve: the {child.name} exited with code {code}; starting it again in {child.delay:g} s"
                + (f" (log: {child.log})." if child.log else "."),
                file=sys.stderr,
            )
            child.restart_at = now + child.delay
            child.delay = min(child.delay * 2, RESTART_DELAY_S[1])
        return None

    def run(self, *, poll_s: float = 0.2) -> int:
        while True:
            code = self.check()
            if code is not None:
                return code
            time.sleep(poll_s)

    def stop(self) -> None:
        """The web server first (no new work), then beat, then the worker (it finishes its tasks)."""
        for child in reversed(self.children):
            child.restart_at = None
            child.stop(time.monotonic() + STOP_TIMEOUT_S)


def _port_in_use(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def _wait_healthy(url: str, web: Child, timeout_s: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and web.process.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def _banner(*, base: str, urls: dict[str, str], var: Path) -> str:
    password = os.environ.get("DEMO_PASSWORD", "casino-war-demo")
    data = []
    if "DATABASE_URL" in urls:
        data.append(f"    PostgreSQL       embedded, data in {var / 'postgres'}")
    if "REDIS_URL" in urls:
        data.append(f"    Redis            embedded, {urls['REDIS_URL']}, data in {var / 'redis'}")
    servers = "\n".join(data) or "    PostgreSQL, Redis  DATABASE_URL, REDIS_URL"
    return f"""
  Casino War is running (Ctrl-C stops everything):
    Play             {base}/            (player demo / {password})
    War games        {base}/war/
    Back office      {base}/admin/      (operator, auditor or admin / {password} + a TOTP code)
    API docs         {base}/api/docs/
    Health           {base}/healthz
{servers}
    Celery           worker and beat, logs in {var / "worker.log"} and {var / "beat.log"}

  The current TOTP code of a staff login, and other management commands (in another terminal):
    $ bin/manage staff_totp --username operator --code
    $ bin/manage ledger_verify
"""


def main() -> int:
    host, port = os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8000"))
    if _port_in_use(host, port):
        print(f"bin/serve: {host}:{port} is in use (another bin/serve?); set PORT to another port.", file=sys.stderr)
        return 1
    var = var_dir()
    var.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    # Also when started in the background by a shell, which would have it ignore SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGHUP, _raise_stop)
    supervisor = None
    try:
        with embedded_servers(**servers_wanted(), var=var) as urls:
            dotenv_prepare(settings=urls)
            env = {**os.environ, **urls, "PYTHONUNBUFFERED": "1"}
            database_prepare(env)
            # bin/serve is the demo: its demo logins are meant, whatever DEBUG says.
            for step in (["migrate", "--noinput"], ["demo_data", "--yes-demo-logins"]):
                subprocess.run([python, "manage.py", *step], cwd=ROOT, env=env, check=True)
            celery = [python, "-m", "celery", "-A", "config"]
            supervisor = Supervisor(
                [
                    Child(
                        "Celery worker",
                        [
                            *celery,
                            "worker",
                            "--loglevel",
                            "INFO",
                            "--concurrency",
                            "2",
                            "--without-gossip",
                            "--without-mingle",
                        ],  # docs/RELIABILITY.md
                        log=var / "worker.log",
                    ),
                    Child(
                        "Celery beat",
                        [*celery, "beat", "--loglevel", "INFO", "--schedule", str(var / "celerybeat-schedule")],
                        log=var / "beat.log",
                    ),
                    Child(
                        "web server", [python, "manage.py", "runserver", f"{host}:{port}", "--noreload"], restart=False
                    ),
                ],
                env,
            )
            try:
                supervisor.start()
                base = f"http://{host}:{port}"
                if _wait_healthy(f"{base}/healthz", supervisor.children[-1]):
                    print(_banner(base=base, urls=urls, var=var), flush=True)
                else:
                    print(f"bin/serve: {base}/healthz does not answer 200 yet.", file=sys.stderr)
                code = supervisor.run()
                print(f"bin/serve: the web server exited with code {code}; stopping.", file=sys.stderr)
                return code or 1
            finally:
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
                print("bin/serve: stopping ...", file=sys.stderr)
                supervisor.stop()
    except (KeyboardInterrupt, Stop):
        return 0
    except DatabaseUnusable as exc:
        print(f"bin/serve: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"bin/serve: `{' '.join(exc.cmd[1:])}` failed (exit {exc.returncode}).", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
