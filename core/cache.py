"""Django's Redis cache, keeping one client per connection pool.

The stock backend builds a new `redis.Redis` for every operation (its constructor installs ~170
response callbacks); the throttles call the cache on every API request, so the client is kept.
A `redis.Redis` over a connection pool is safe to share between threads."""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property


class _ClientPerPool(RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients_by_pool", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client


class PooledRedisCache(RedisCache):
    @cached_property
    def _cache(self):
        return _ClientPerPool(self._servers, **self._options)
