import time

import pytest
from django.core.cache import caches
from redis.exceptions import ResponseError

from core.attempts import attempt_failed, attempts_exhausted
from core.cache import PooledRedisCache, _ClientPerPool
from tests.redis_server import RedisServer, free_port


@pytest.fixture
def redis_cache(settings):
    if not settings.REDIS_URL:
        pytest.skip("needs Redis")
    return PooledRedisCache(settings.REDIS_URL, {})


@pytest.fixture
def own_redis():
    server = RedisServer().start()
    yield server
    server.close()


@pytest.fixture
def redis_calls(monkeypatch):
    """How many operations reached for a Redis client (rather than the fallback)."""
    calls = []
    original = _ClientPerPool.get_client

    def counting_get_client(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(_ClientPerPool, "get_client", counting_get_client)
    return calls


def test_the_cache_keeps_one_client_and_still_works(redis_cache):
    redis_cache.set("core-cache-test", 41, 30)
    assert redis_cache.incr("core-cache-test") == 42
    assert redis_cache.add("core-cache-test", 0, 30) is False
    first = redis_cache._cache.get_client(write=True)
    assert redis_cache._cache.get_client(write=True) is first
    redis_cache.delete("core-cache-test")
    assert redis_cache.status()["state"] == "closed"


def test_the_configured_cache_is_the_pooled_one_with_redis(settings):
    if settings.REDIS_URL:
        assert isinstance(caches["default"], PooledRedisCache)


def test_a_dead_redis_fails_open_to_process_memory_without_calling_it_every_time(redis_calls, caplog):
    dead = PooledRedisCache(f"redis://127.0.0.1:{free_port()}/0", {"OPTIONS": {"CIRCUIT_OPEN_S": 60}})
    assert dead.get("missing", "default") == "default"  # no exception: the fallback answered
    assert dead.add("counter", 1, 30) is True
    assert dead.incr("counter") == 2
    assert dead.get_or_set("other", 7) == 7
    with pytest.raises(ValueError):
        dead.incr("nothing-there")  # the fallback keeps the cache's contract
    status = dead.status()
    assert status["state"] == "open" and status["circuit_openings"] == 1 and status["failures"] == 1
    assert status["fallback_operations"] >= 5 and "ConnectionError" in status["last_error"]
    assert len(redis_calls) == 1  # only the first call tried Redis: the circuit is open
    assert [r.levelname for r in caplog.records if r.name == "core.cache"] == ["WARNING"]
    assert "unreachable" in caplog.records[-1].getMessage()


def test_a_frozen_redis_costs_one_timeout_then_nothing(own_redis):
    frozen = PooledRedisCache(own_redis.url, {"OPTIONS": {"CIRCUIT_OPEN_S": 60, "socket_timeout": 0.3}})
    frozen.set("k", 1, 30)
    own_redis.freeze()
    try:
        started = time.monotonic()
        assert frozen.get("k") is None  # the fallback does not hold Redis's data
        first = time.monotonic() - started
        started = time.monotonic()
        for _ in range(100):
            frozen.get("k")
        hundred_more = time.monotonic() - started
    finally:
        own_redis.thaw()
    assert 0.25 < first < 2
    assert hundred_more < 0.25
    assert frozen.status()["state"] == "open"


def test_the_circuit_closes_when_redis_is_back_and_the_fallback_is_dropped(own_redis, caplog):
    backend = PooledRedisCache(own_redis.url, {"OPTIONS": {"CIRCUIT_OPEN_S": 0.2}})
    backend.set("k", "from redis", 30)
    own_redis.stop()
    backend.set("k", "from the fallback", 30)
    assert backend.get("k") == "from the fallback"
    own_redis.start()  # a fresh, empty server on the same port
    time.sleep(0.25)
    assert backend.get("k") is None  # the probe reached Redis
    assert backend.status()["state"] == "closed"
    assert backend.fallback.get("k") is None  # dropped: a later outage does not resurrect old values
    assert "reachable again" in caplog.records[-1].getMessage()


def test_one_caller_probes_while_the_others_keep_to_the_fallback():
    backend = PooledRedisCache(f"redis://127.0.0.1:{free_port()}/0", {"OPTIONS": {"CIRCUIT_OPEN_S": 0.05}})
    backend.get("k")
    time.sleep(0.06)
    assert backend.breaker.allow() is True  # the probe
    assert backend.breaker.allow() is False  # everyone else, meanwhile
    backend.breaker.failed(ConnectionError("still down"))
    assert backend.breaker.allow() is False  # open again for another period


@pytest.mark.django_db
def test_throttled_api_and_attempt_counters_answer_with_redis_down(client, settings, table):
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.PooledRedisCache", "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    }
    response = client.get("/api/v1/tables/")  # DRF's anonymous throttle reads the cache
    assert response.status_code == 200
    for _ in range(3):
        attempt_failed(key="someone")
    assert attempts_exhausted(key="someone", limit=3)
    assert caches["default"].status()["state"] == "open"


def test_versions_are_made_once_read_in_one_round_trip_and_bumped(redis_cache, monkeypatch):
    keys = ["core-version-a", "core-version-b"]
    redis_cache.delete_many(keys)
    assert redis_cache.versions(keys) == [None, None]
    made = redis_cache.versions(keys, create=True)
    assert None not in made
    calls, call = [], redis_cache._call
    monkeypatch.setattr(redis_cache, "_call", lambda *commands: calls.append(commands) or call(*commands))
    assert redis_cache.versions(keys) == made and len(calls) == 1 and len(calls[0]) == 1  # one MGET
    assert redis_cache.versions(keys, create=True) == made  # made once: an existing one stays
    assert redis_cache.versions_bump(keys[:1]) is True
    bumped = redis_cache.versions(keys)
    assert bumped[0] not in (None, made[0]) and bumped[1] == made[1]


def test_versions_have_no_per_process_fallback():
    """A version only means something if every process sees it: with Redis down there is none."""
    dead = PooledRedisCache(f"redis://127.0.0.1:{free_port()}/0", {"OPTIONS": {"CIRCUIT_OPEN_S": 60}})
    assert dead.versions(["a"], create=True) is None
    assert dead.versions_bump(["a"]) is False
    assert dead.versions(["a"]) is None


def test_the_hot_operations_share_one_connection_per_thread_and_stay_in_step(redis_cache):
    """Rate limits, nonces, windows and versions go on the thread's own connection, commands sent
    together; an error Redis answers leaves the connection usable, a lost one is made again."""
    redis_cache.delete_many(["core-hot-nonce", "core-hot-window"])
    assert redis_cache.add_shared("core-hot-nonce", 1, 30) is True
    assert redis_cache.add_shared("core-hot-nonce", 1, 30) is False
    assert redis_cache.get("core-hot-nonce") == 1  # as Django's cache reads what the fast path wrote
    ends, opened = redis_cache.window_open("core-hot-window", seconds=5)
    assert opened and redis_cache.window_open("core-hot-window", seconds=5) == (ends, False)
    assert redis_cache.rate_limit("core-hot-rate", interval_s=10, burst_s=10) == 0
    assert redis_cache.rate_limit("core-hot-rate", interval_s=10, burst_s=10) > 0
    connection = redis_cache._thread_connection.connection
    with pytest.raises(ResponseError):
        redis_cache._call(("GET",), ("PING",))  # refused, and the PING's answer is read as well
    assert redis_cache._call(("PING",)) == [b"PONG"]
    assert redis_cache._thread_connection.connection is connection
    connection.disconnect()  # gone (Redis restarted): the next call connects again
    assert redis_cache.add_shared("core-hot-nonce-2", 1, 30) is True
    redis_cache.delete_many(["core-hot-nonce", "core-hot-nonce-2", "core-hot-window", "core-hot-rate"])


def test_the_rate_limit_script_is_loaded_again_after_a_redis_restart(redis_cache):
    redis_cache._call(("SCRIPT", "FLUSH"))
    assert redis_cache.rate_limit("core-hot-rate-2", interval_s=1, burst_s=10) == 0
    redis_cache.delete("core-hot-rate-2")
