"""Rate limits decided in one cache call (core/throttling.py, core/cache.py's GCRA): on Redis, in
process memory, and failing open while Redis is away; and the cache's windows (settlement's)."""

import time

import pytest
from django.core.cache.backends.locmem import LocMemCache

from core.cache import PooledRedisCache, cache_rate_limit, cache_window_open
from tests.redis_server import RedisServer, free_port


@pytest.fixture
def own_redis():
    server = RedisServer().start()
    yield server
    server.close()


def _decisions(cache, key, n, *, interval_s, burst_s):
    return [cache_rate_limit(cache, key, interval_s=interval_s, burst_s=burst_s) for _ in range(n)]


def test_a_rate_allows_its_burst_then_says_how_long_to_wait(own_redis):
    cache = PooledRedisCache(own_redis.url, {})
    waits = _decisions(cache, "caller", 4, interval_s=20, burst_s=60)  # 3 a minute
    assert waits[:3] == [0, 0, 0]
    assert 19 < waits[3] <= 20  # the next one in 20 s
    assert _decisions(cache, "someone-else", 1, interval_s=20, burst_s=60) == [0]


def test_in_process_memory_counts_the_same_way():
    cache = LocMemCache("throttle-test", {})
    waits = _decisions(cache, "caller", 4, interval_s=20, burst_s=60)
    assert waits[:3] == [0, 0, 0] and 19 < waits[3] <= 20


def test_a_rate_fails_open_to_process_memory_while_redis_is_away():
    dead = PooledRedisCache(f"redis://127.0.0.1:{free_port()}/0", {"OPTIONS": {"CIRCUIT_OPEN_S": 60}})
    assert _decisions(dead, "caller", 3, interval_s=20, burst_s=40) == [0, 0, pytest.approx(20, abs=1)]
    assert dead.status()["state"] == "open" and dead.status()["fallback_operations"] == 3


def test_a_window_opens_once_until_it_ends(own_redis):
    cache = PooledRedisCache(own_redis.url, {})
    ends, opened = cache.window_open("w", seconds=0.3)
    again, opened_again = cache.window_open("w", seconds=0.3)
    assert opened and not opened_again and again == pytest.approx(ends)
    time.sleep(0.35)
    later, opened_later = cache.window_open("w", seconds=0.3)
    assert opened_later and later > ends
    memory = LocMemCache("window-test", {})
    assert cache_window_open(memory, "w", seconds=0.3)[1] and not cache_window_open(memory, "w", seconds=0.3)[1]
