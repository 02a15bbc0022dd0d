"""bin/test's choices (tests/runner.py): which PostgreSQL and Redis, how many workers; and each
worker's own Redis database (tests/isolation.py)."""

from __future__ import annotations

import os

from django.core.cache import cache

from tests.isolation import worker_redis_url
from tests.runner import LOCAL_DATABASE_URL, LOCAL_REDIS_URL, pytest_arguments, redis_test_url, servers_chosen


def test_the_environment_wins_then_the_local_servers_then_the_embedded_ones():
    named = {"DATABASE_URL": "postgres://u@db/x", "REDIS_URL": "redis://r:1/3"}
    assert servers_chosen(named, answers=lambda host, port: False) == named
    assert servers_chosen({}, answers=lambda host, port: True) == {
        "DATABASE_URL": LOCAL_DATABASE_URL,
        "REDIS_URL": LOCAL_REDIS_URL,
    }
    # A bare machine: nothing on 5432 or 6379, nothing set: both embedded (None).
    assert servers_chosen({}, answers=lambda host, port: False) == {"DATABASE_URL": None, "REDIS_URL": None}
    only_redis_up = servers_chosen({"DATABASE_URL": ""}, answers=lambda host, port: port == 6379)
    assert only_redis_up == {"DATABASE_URL": None, "REDIS_URL": LOCAL_REDIS_URL}
    assert redis_test_url("redis://127.0.0.1:40123/0") == "redis://127.0.0.1:40123/15"


def test_workers_one_per_core_and_one_more_unless_the_arguments_or_test_workers_say():
    workers = str(os.cpu_count() + 1)  # the suite waits on browsers and servers: one more keeps the cores busy
    slowest = ["--durations", "15"]
    assert pytest_arguments(["-x"], environ={}) == ["-n", workers, "--dist", "worksteal", *slowest, "-x"]
    assert pytest_arguments(["-x"], environ={"TEST_WORKERS": "3"})[:2] == ["-n", "3"]
    assert pytest_arguments(["-k", "ledger"], environ={"TEST_WORKERS": "0"}) == [*slowest, "-k", "ledger"]
    for chosen in (["-n", "4"], ["-n4"], ["--numprocesses=2"], ["-p", "no:xdist"]):
        assert pytest_arguments(chosen, environ={}) == [*slowest, *chosen]
    assert pytest_arguments(["--durations=0", "-n", "2"], environ={}) == ["--durations=0", "-n", "2"]


def test_each_worker_takes_a_redis_database_of_its_own():
    assert worker_redis_url("redis://127.0.0.1:6379/15", None) == "redis://127.0.0.1:6379/15"
    assert worker_redis_url("redis://127.0.0.1:6379/15", "gw0") == "redis://127.0.0.1:6379/15"
    assert worker_redis_url("redis://127.0.0.1:6379/15", "gw1") == "redis://127.0.0.1:6379/14"
    assert worker_redis_url("redis://:secret@host:6380/0", "gw2") == "redis://:secret@host:6380/14"


def test_this_worker_uses_its_redis_database(settings):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    assert os.environ["REDIS_URL"] == settings.REDIS_URL
    if worker:
        database = int(settings.REDIS_URL.rsplit("/", 1)[1])
        assert cache._cache.get_client().connection_pool.connection_kwargs["db"] == database
