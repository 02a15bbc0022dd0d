import pytest
from django.db import OperationalError

from tests.redis_server import free_port

pytestmark = pytest.mark.django_db


def test_readiness_reports_database_broker_and_cache(client, settings):
    for path in ("/healthz", "/healthz/ready"):
        response = client.get(path)
        body = response.json()
        assert response.status_code == 200 and body["status"] == "ok"
        assert body["database"]["ok"] is True and body["broker"]["ok"] is True
        assert body["broker"]["kind"] == ("redis" if settings.REDIS_URL else "in-process")
        assert body["cache"]["state"] == "closed" and body["after_commit_failures"] >= 0


def test_liveness_touches_nothing(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz/live")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_redis_down_is_degraded_but_still_ready(client, settings):
    """A load balancer must not take every node out while rounds can still be placed."""
    dead = f"redis://127.0.0.1:{free_port()}/0"
    settings.REDIS_URL = dead
    settings.CACHES = {"default": {"BACKEND": "core.cache.PooledRedisCache", "LOCATION": dead}}
    client.get("/api/v1/tables/")  # a request that uses the cache opens its circuit
    response = client.get("/healthz/ready")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "degraded"
    assert body["broker"]["ok"] is False and body["cache"]["state"] == "open"
    assert body["cache"]["fallback_operations"] >= 1
    assert client.get("/healthz/live").status_code == 200


def test_database_down_is_not_ready_but_alive(client, monkeypatch):
    def unreachable(self):
        raise OperationalError("connection refused")

    monkeypatch.setattr("django.db.backends.base.base.BaseDatabaseWrapper.cursor", unreachable)
    response = client.get("/healthz/ready")
    assert response.status_code == 503 and response.json()["status"] == "unavailable"
    assert response.json()["database"]["ok"] is False and response.json()["database"]["error"] == "OperationalError"
    assert client.get("/healthz/live").status_code == 200
