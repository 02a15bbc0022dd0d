"""Parallel test workers (`pytest -n N`, pytest-xdist) share nothing: each has a PostgreSQL
database (pytest-django names it `test_<name>_gw<N>`) and a Redis database of its own.

Worker gwN takes the Redis database N below REDIS_URL's (bin/test's default is /15, so gw0 uses 15
and gw1 14): the cache (`cache.clear()` empties it), the throttles' counters, the nonces and the
Celery broker of one worker are never another's. Loaded with `-p tests.isolation` (pyproject's
addopts), before pytest-django reads the settings, and in the environment, so that every process
a test starts (a Celery worker, gunicorn, `manage.py`) uses the worker's database too.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16  # Redis's default `databases`


def worker_redis_url(url: str, worker: str | None) -> str:
    """REDIS_URL for the xdist worker `worker` ("gw3"); the URL itself outside xdist."""
    if not url or not worker or not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = (base - int(worker[2:])) % REDIS_DATABASES
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], worker)
