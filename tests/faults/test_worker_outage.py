"""A real worker, started as the service starts its workers, survives the broker outage that killed
workers in about 3 of 25 Redis outages (issue #16; config/kombu_redis.py says how).

It needs a task in flight (acknowledged late), a BRPOP pending (the worker can take one more task)
and the lost connection noticed first on the remote control's pub/sub connection. The test makes
that happen every time: Redis closes the pub/sub connection (CLIENT KILL), is frozen at once (so
the worker's reconnection to it hangs and its BRPOP gets no answer), then killed. Without the
workaround the worker exits with "Unrecoverable error: AttributeError(... 'hostname')"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import redis
from celery import Celery

from tests.faults.cluster import ROOT, WORKER_FLAGS
from tests.redis_server import RedisServer

pytestmark = pytest.mark.faults

HELD_S = 4  # the task in flight runs on through the outage


@pytest.fixture
def broker():
    server = RedisServer().start()
    yield server
    server.close()


@pytest.fixture
def worker(broker, tmp_path):
    log_path = tmp_path / "worker.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "tests.faults.outage_worker",
                "worker",
                "--concurrency",
                "2",
                *WORKER_FLAGS,
                "--loglevel",
                "INFO",
            ],
            cwd=ROOT,
            env={**os.environ, "REDIS_URL": broker.url},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    process.log = lambda: log_path.read_text(errors="replace")
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # the test is over: no warm shutdown to wait for
            process.wait(timeout=10)
        print(process.log()[-6000:])


def wait_for(condition, *, within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within} s")
        time.sleep(0.05)


def test_a_worker_with_a_task_in_flight_rides_out_the_broker_outage_that_killed_workers(broker, worker):
    publisher = Celery("outage-publisher", broker=broker.url, set_as_current=False)
    wait_for(lambda: "ready." in worker.log(), within=60, what="the worker started")
    publisher.send_task("tests.faults.hold", args=[HELD_S])
    wait_for(
        lambda: "tests.faults.hold" in worker.log() and "received" in worker.log(),
        within=10,
        what="the worker took the task",
    )
    time.sleep(0.3)  # its BRPOP for one more task is pending now

    admin = redis.Redis.from_url(broker.url)
    assert admin.client_kill_filter(_type="pubsub") >= 1  # the remote control's connection: noticed first
    broker.freeze()
    time.sleep(0.3)
    broker.stop()
    time.sleep(1)
    broker.start()

    wait_for(
        lambda: worker.poll() is not None or worker.log().count("Connected to redis") >= 2,
        within=30,
        what="the worker reconnected",
    )
    publisher.send_task("tests.faults.hold", args=[0])
    wait_for(
        lambda: worker.poll() is not None or worker.log().count("succeeded") >= 2,
        within=30,
        what="the worker ran a task after the outage",
    )
    log = worker.log()
    assert worker.poll() is None and "Unrecoverable error" not in log, log[-6000:]
    assert "a BRPOP pending: its reply is lost" in log  # the outage met the worker as intended
