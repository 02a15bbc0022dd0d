import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_broker(client, settings):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert body["database"]["ok"] is True and body["broker"]["ok"] is True
    assert body["broker"]["kind"] == ("redis" if settings.REDIS_URL else "in-process")


def test_healthz_is_unhealthy_when_the_broker_is_down(client):
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert response.status_code == 503 and response.json()["broker"]["ok"] is False
