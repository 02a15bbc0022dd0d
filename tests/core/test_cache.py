import pytest
from django.core.cache import caches

from core.cache import PooledRedisCache


@pytest.fixture
def redis_cache(settings):
    if not settings.REDIS_URL:
        pytest.skip("needs Redis")
    return PooledRedisCache(settings.REDIS_URL, {})


def test_the_cache_keeps_one_client_and_still_works(redis_cache):
    redis_cache.set("core-cache-test", 41, 30)
    assert redis_cache.incr("core-cache-test") == 42
    assert redis_cache.add("core-cache-test", 0, 30) is False
    first = redis_cache._cache.get_client(write=True)
    assert redis_cache._cache.get_client(write=True) is first
    redis_cache.delete("core-cache-test")


def test_the_configured_cache_is_the_pooled_one_with_redis(settings):
    if settings.REDIS_URL:
        assert isinstance(caches["default"], PooledRedisCache)
