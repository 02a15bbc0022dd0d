"""The service as it runs in production, in processes a fault test may kill: gunicorn, a Celery
worker and beat, on a Redis server of the test's own and the test's PostgreSQL database.

A supervisor thread restarts whatever exits (as systemd's Restart=always or compose's `restart:
unless-stopped` would) and records every exit, telling the ones the test caused from the others."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection

from tests.databases import database_url
from tests.redis_server import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]
APP_NAME = "cw-fault-app"  # PostgreSQL application_name of the app's connections (and only theirs)
RESTART_AFTER_S = 1.0
# As every way the service runs starts its workers (docker/compose.yaml, bin/serve,
# docs/RELIABILITY.md); never --without-heartbeat (config/settings.py says why).
WORKER_FLAGS = ("--without-gossip", "--without-mingle")


@dataclass
class Exit:
    name: str
    at: float
    returncode: int
    expected: bool
    log_tail: str = ""


@dataclass
class Supervised:
    name: str
    argv: list[str]
    log_path: Path
    process: subprocess.Popen | None = None
    expected_exit: bool = False
    starts: int = 0
    started_at: float = 0.0
    restart_at: float | None = None


@dataclass
class Cluster:
    redis: RedisServer
    env: dict[str, str]
    directory: Path
    port: int = field(default_factory=free_port)
    exits: list[Exit] = field(default_factory=list)
    _services: dict[str, Supervised] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)

    @classmethod
    def create(cls) -> Cluster:
        redis = RedisServer().start()
        db = connection.settings_dict
        directory = Path(tempfile.mkdtemp(prefix="cw-faults-"))
        env = {
            **os.environ,
            "DATABASE_URL": f"{database_url(db)}?application_name={APP_NAME}",
            "REDIS_URL": redis.url,
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "false",
            "THROTTLE_ANON": "1000000/min",
            "THROTTLE_PLAYER": "1000000/min",
            "THROTTLE_PARTNER": "1000000/min",
            "VAR_DIR": str(directory),
            "PYTHONUNBUFFERED": "1",
            # A seamless partner's wallet listens on this machine (tests/wallet_server.py).
            "OUTBOUND_ALLOW_PRIVATE": "true",
        }
        return cls(redis=redis, env=env, directory=directory)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        python = sys.executable
        self._add(
            "web",
            [
                python,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "--threads",
                "4",
                "--timeout",
                "30",
                "--graceful-timeout",
                "5",
            ],
        )
        self._add(
            "worker",
            [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--concurrency",
                "2",
                *WORKER_FLAGS,
                "--loglevel",
                "INFO",
            ],
        )
        self._add(
            "beat",
            [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(self.directory / "beat-schedule"),
            ],
        )
        for service in self._services.values():
            self._spawn(service)
        threading.Thread(target=self._supervise, name="supervisor", daemon=True).start()

    def _add(self, name: str, argv: list[str]) -> None:
        self._services[name] = Supervised(name=name, argv=argv, log_path=self.directory / f"{name}.log")

    def _spawn(self, service: Supervised) -> None:
        log = service.log_path.open("a")
        log.write(f"\n===== start {service.starts + 1} at {time.monotonic():.2f}\n")
        log.flush()
        service.process = subprocess.Popen(
            service.argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        service.starts += 1
        service.started_at = time.monotonic()
        service.expected_exit = False

    def _supervise(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                for service in self._services.values():
                    if service.restart_at is not None:
                        if time.monotonic() >= service.restart_at:
                            service.restart_at = None
                            self._spawn(service)
                        continue
                    returncode = service.process.poll()
                    if returncode is not None:
                        self.exits.append(
                            Exit(
                                service.name,
                                time.monotonic(),
                                returncode,
                                service.expected_exit,
                                self.log_tail(service.name),
                            )
                        )
                        service.restart_at = time.monotonic() + RESTART_AFTER_S  # like systemd's RestartSec
            self._stop.wait(0.1)

    def log_tail(self, name: str, chars: int = 4000) -> str:
        text = self._services[name].log_path.read_text(errors="replace")
        return text[-chars:]

    def starts(self, name: str) -> int:
        """How many times the service was started (its first start included)."""
        with self._lock:
            return self._services[name].starts

    def pid(self, name: str) -> int:
        return self._services[name].process.pid

    def kill(self, name: str) -> float:
        """SIGKILL the service's main process (and its process group: nothing is left to clean up)."""
        with self._lock:
            service = self._services[name]
            service.expected_exit = True
            os.killpg(service.process.pid, signal.SIGKILL)
            return time.monotonic()

    def web_workers(self) -> list[int]:
        master = self.pid("web")
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == master:
                children.append(int(stat.parent.name))
        return sorted(children)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for service in self._services.values():
                service.restart_at = None
                if service.process is not None and service.process.poll() is None:
                    service.expected_exit = True
                    os.killpg(service.process.pid, signal.SIGTERM)
            for service in self._services.values():
                if service.process is None:
                    continue
                try:
                    service.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(service.process.pid, signal.SIGKILL)
                    service.process.wait(timeout=10)
        self.redis.close()
