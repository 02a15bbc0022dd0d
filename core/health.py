"""Health for load balancers, orchestrators and people.

* `/healthz/live` (liveness): the process answers. Touches nothing else; restart the process only
  when this fails.
* `/healthz/ready` (readiness): the database answers (`503 unavailable` otherwise: take the node out
  of rotation). Redis (broker and cache) down is `degraded` and still `200`: rounds are placed and
  decided meanwhile (the cache fails open, settlement catches up by the sweeper when it is back),
  so a load balancer must not take every node out for it. The body shows the cache's circuit
  breaker and the count of failed after-commit side effects of this process.
* `/healthz` is readiness, as it always was for the Docker image's health check.
"""

from __future__ import annotations

import functools
import time

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core import after_commit

BROKER_TIMEOUT_S = 0.5


def _check_database() -> dict:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # a health check reports failures, it does not raise them
        return {"ok": False, "vendor": connection.vendor, "error": exc.__class__.__name__}
    return {"ok": True, "vendor": connection.vendor, "ms": round((time.perf_counter() - started) * 1000, 2)}


@functools.cache
def _broker_client(url: str):
    """One client (and connection pool) per process: a new connection per check costs ~1 ms of
    CPU in redis-py alone, and load balancers check often."""
    return redis.Redis.from_url(url, socket_connect_timeout=BROKER_TIMEOUT_S, socket_timeout=BROKER_TIMEOUT_S)


def _check_broker() -> dict:
    if not settings.REDIS_URL:
        return {
            "ok": True,
            "kind": "in-process",
            "detail": "no REDIS_URL: settlement runs in the web process",
        }
    started = time.perf_counter()
    try:
        _broker_client(settings.REDIS_URL).ping()
    except Exception as exc:
        return {"ok": False, "kind": "redis", "error": exc.__class__.__name__}
    return {"ok": True, "kind": "redis", "ms": round((time.perf_counter() - started) * 1000, 2)}


def _cache_status() -> dict:
    status = getattr(cache, "status", None)
    return status() if status is not None else {"state": "closed", "backend": cache.__class__.__name__}


@never_cache
@require_GET
def live(request):
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def ready(request):
    database = _check_database()
    broker = _check_broker()
    cache_status = _cache_status()
    if not database["ok"]:
        status = "unavailable"
    elif not broker["ok"] or cache_status["state"] != "closed":
        status = "degraded"
    else:
        status = "ok"
    return JsonResponse(
        {
            "status": status,
            "database": database,
            "broker": broker,
            "cache": cache_status,
            "after_commit_failures": after_commit.failures,
        },
        status=503 if status == "unavailable" else 200,
    )
