"""bin/serve's supervisor (config/serve.py): a Celery worker or beat that dies is started again,
the web server's exit ends the run, and stopping leaves no process behind, even one a child
started, even when the supervisor itself is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from config import serve
from config.serve import Child, Supervisor

ROOT = Path(__file__).resolve().parents[2]
SLEEP = [sys.executable, "-c", "import time; time.sleep(120)"]
# A child that starts a process of its own (as a Celery worker starts its pool), one that ignores
# SIGTERM, and prints its pid.
WITH_GRANDCHILD = [
    sys.executable,
    "-c",
    "import subprocess, sys, time\n"
    "p = subprocess.Popen([sys.executable, '-c', 'import signal, time\\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)'])\n"
    "print(p.pid, flush=True); time.sleep(120)\n",
]


def gone(pid: int, timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_a_worker_that_dies_is_started_again_with_a_growing_delay(monkeypatch):
    monkeypatch.setattr(serve, "RESTART_DELAY_S", (0.1, 0.4))
    said = []
    worker = Child("Celery worker", SLEEP, delay=0.1)
    web = Child("web server", SLEEP, restart=False)
    supervisor = Supervisor([worker, web], dict(os.environ), say=lambda *args, **kwargs: said.append(args[0]))
    supervisor.start()
    try:
        for restart in range(1, 4):
            first = worker.process.pid
            os.kill(first, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while worker.process.pid == first and time.monotonic() < deadline:
                assert supervisor.check() is None, "a worker's death must not end the run"
                time.sleep(0.02)
            assert worker.process.pid != first and worker.process.poll() is None
            assert worker.restarts == restart
        assert "the Celery worker exited with code -9; starting it again in 0.1 s" in said[0]
        assert [line.split(" in ")[1].split()[0] for line in said] == ["0.1", "0.2", "0.4"]
        assert web.process.poll() is None
    finally:
        supervisor.stop()


def test_the_web_servers_exit_ends_the_run_with_its_code():
    worker = Child("Celery worker", SLEEP)
    web = Child("web server", [sys.executable, "-c", "import sys; sys.exit(3)"], restart=False)
    supervisor = Supervisor([worker, web], dict(os.environ))
    supervisor.start()
    try:
        assert supervisor.run(poll_s=0.02) == 3
    finally:
        supervisor.stop()
    assert gone(worker.process.pid)


def test_stopping_ends_every_child_and_what_it_started(tmp_path, monkeypatch):
    log = tmp_path / "worker.log"
    worker = Child("Celery worker", WITH_GRANDCHILD, log=log)
    beat = Child(
        "Celery beat",
        [sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"],
    )
    supervisor = Supervisor([worker, beat], dict(os.environ))
    supervisor.start()
    deadline = time.monotonic() + 10
    while not log.read_text().strip() and time.monotonic() < deadline:
        time.sleep(0.05)
    grandchild = int(log.read_text())
    monkeypatch.setattr(serve, "STOP_TIMEOUT_S", 1.0)  # beat ignores SIGTERM: killed after this
    supervisor.stop()
    assert gone(worker.process.pid) and gone(beat.process.pid) and gone(grandchild)


def test_children_exit_when_the_supervisor_is_killed():
    script = (
        "import os, sys, time\n"
        "from config.serve import Child, Supervisor\n"
        f"s = Supervisor([Child('Celery worker', {SLEEP!r})], dict(os.environ)); s.start()\n"
        "print(s.children[0].process.pid, flush=True); time.sleep(120)\n"
    )
    supervisor = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        child = int(supervisor.stdout.readline())
        supervisor.kill()  # no clean-up at all
        supervisor.wait()
        assert gone(child), "an orphaned worker would keep running after bin/serve was killed"
    finally:
        supervisor.kill()
