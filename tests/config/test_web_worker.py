"""config/web_worker.py, in gunicorn as the service runs it (gunicorn.conf.py, read from the
project's root): a process holding a connection for each of its threads leaves new connections to
a sibling with a free thread, and takes them itself when every process is full."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
# Long enough for an idle sibling to be scheduled and accept on a machine busy with other tests.
ACCEPT_DEFER_S = 0.25


@pytest.fixture
def gunicorn(request):
    workers = request.param
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "tests.config.pid_app:app",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            "1",
            "--log-level",
            "info",
        ],
        cwd=ROOT,
        env={**os.environ, "GUNICORN_ACCEPT_DEFER_MS": str(int(ACCEPT_DEFER_S * 1000))},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        booted = []
        while len(booted) < workers:  # every worker booted, so none is still starting when we connect
            line = process.stderr.readline()
            assert line and time.monotonic() < deadline, "gunicorn did not boot its workers"
            if "Using worker:" in line:
                assert "config.web_worker.BalancedThreadWorker" in line  # gunicorn.conf.py was read
            if "Booting worker with pid" in line:
                booted.append(line)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()


def _slow_request(port: int, seconds: float) -> http.client.HTTPConnection:
    """A kept-alive connection whose request holds its process's only thread for `seconds`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"/?sleep={seconds}")
    time.sleep(0.2)  # accepted before the next one comes
    return connection


def _pid(connection: http.client.HTTPConnection) -> str:
    response = connection.getresponse()
    assert response.status == 200
    return response.read().decode()


@pytest.mark.parametrize("gunicorn", [3], indirect=True)
def test_each_new_connection_goes_to_a_process_with_a_free_thread(gunicorn):
    connections = [_slow_request(gunicorn, 2.0) for _ in range(3)]
    started = time.monotonic()
    pids = [_pid(connection) for connection in connections]
    # Each process served one connection, all at once: none waited behind another's request.
    assert len(set(pids)) == 3
    assert time.monotonic() - started < 3.0
    for connection, pid in zip(connections, pids, strict=True):  # and a connection stays with its process
        connection.request("GET", "/")
        assert _pid(connection) == pid
        connection.close()


@pytest.mark.parametrize("gunicorn", [2], indirect=True)
def test_when_every_process_is_full_a_new_connection_is_still_served(gunicorn):
    connections = [_slow_request(gunicorn, 1.0) for _ in range(2)]
    third = http.client.HTTPConnection("127.0.0.1", gunicorn, timeout=30)
    third.request("GET", "/")
    pids = [_pid(connection) for connection in connections]
    assert len(set(pids)) == 2
    assert _pid(third) in pids  # taken by one of them once its wait was over, answered after its request
    for connection in [*connections, third]:
        connection.close()
