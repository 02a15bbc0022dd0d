"""Issue #33, item 1, as found: a signed transfer in (201); the same bytes under a new
Idempotency-Key (401, nonce used); Redis killed and started empty; the same bytes under a third key
were a 201, a second transfer with one reference. The nonce is now refused for its whole window
whatever Redis remembers: PostgreSQL records it (core/nonces.py)."""

import json

import pytest
import redis
from django.core.cache import caches

from accounts.models import Transfer
from accounts.services import partner_create
from tests.casino.helpers import PartnerClient, sign
from tests.redis_server import RedisServer

pytestmark = pytest.mark.django_db
BASE = "/api/v1/partner/players"


@pytest.fixture
def own_redis(settings):
    """The cache on a Redis server of the test's own, which it may kill and start again empty."""
    server = RedisServer().start()
    settings.CACHES = {"default": {"BACKEND": "core.cache.PooledRedisCache", "LOCATION": server.url}}
    yield server
    server.close()


def test_a_signed_transfer_replayed_after_redis_lost_its_data_is_refused(client, own_redis):
    partner, secret = partner_create(name="Replayed Casino")
    assert PartnerClient(client, partner, secret).put(f"{BASE}/ext-1/", {"currency": "EUR"}).status_code == 201
    path = f"{BASE}/ext-1/transfers/"
    body = json.dumps({"direction": "in", "amount": 5_000, "reference": "dep-77"}).encode()
    signed = sign(partner, secret, "POST", path, body)  # the same bytes, every time below

    def send(key):
        return client.post(path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, **signed)

    assert send("key-1").status_code == 201
    assert send("key-2").status_code == 401  # Redis remembers the nonce
    own_redis.stop()
    own_redis.start()  # empty: it saves nothing
    assert redis.Redis.from_url(own_redis.url).dbsize() == 0  # the fault happened: Redis remembers nothing
    replayed = send("key-3")
    assert replayed.status_code == 401 and replayed.json()["code"] == "signature_invalid", replayed.content
    assert Transfer.objects.filter(reference="dep-77").count() == 1
    assert (
        client.get(f"{BASE}/ext-1/wallet/", **sign(partner, secret, "GET", f"{BASE}/ext-1/wallet/")).json()["balance"]
        == 5_000
    )


@pytest.fixture
def redis_away(monkeypatch):
    """The cache's circuit is open: Redis remembers no nonce, the database alone refuses one."""
    monkeypatch.setattr(caches["default"].breaker, "allow", lambda: False)


@pytest.mark.parametrize(
    "first_body",
    [
        {"direction": "in", "amount": 5_000, "reference": "dep-1"},  # the retry is answered by a replay
        {"direction": "in", "amount": -5, "reference": "dep-1"},  # refused before any work (400)
    ],
)
def test_a_nonce_is_spent_whatever_the_request_was_answered(client, redis_away, first_body):
    partner, secret = partner_create(name="Spent Casino")
    assert PartnerClient(client, partner, secret).put(f"{BASE}/ext-1/", {"currency": "EUR"}).status_code == 201
    path = f"{BASE}/ext-1/transfers/"
    good = json.dumps({"direction": "in", "amount": 5_000, "reference": "dep-1"}).encode()
    assert (
        client.post(
            path,
            data=good,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="key-1",
            **sign(partner, secret, "POST", path, good),
        ).status_code
        == 201
    )
    body = json.dumps(first_body).encode()
    signed = sign(partner, secret, "POST", path, body)
    first = client.post(path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="key-1", **signed)
    assert first.status_code in (201, 400) and first.status_code != 401
    again = client.post(path, data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="key-2", **signed)
    assert again.status_code == 401 and again.json()["code"] == "signature_invalid"
    assert Transfer.objects.count() == 1
