"""`/healthz`: is the database reachable, and the broker (or is settlement in-process)?"""

from __future__ import annotations

import functools
import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


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
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)


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


@never_cache
@require_GET
def healthz(request):
    database = _check_database()
    broker = _check_broker()
    healthy = database["ok"] and broker["ok"]
    return JsonResponse(
        {"status": "ok" if healthy else "unhealthy", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
