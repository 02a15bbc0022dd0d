"""Django's Redis cache, built to keep the service up when Redis is not.

Every user of the cache (DRF's throttles, the sign-in attempt counters, the settlement flag) goes
through this backend, so Redis being down is handled here, once:

* Fail fast: short socket timeouts (a frozen Redis costs a request at most one timeout), no
  retries inside redis-py.
* A circuit breaker: after a connection error or a timeout the backend stops calling Redis for
  `CIRCUIT_OPEN_S` seconds, then lets one call through to probe it; a dead Redis does not add a
  timeout to every request.
* Fail open: while the circuit is open every operation is served by a per-process in-memory cache
  (throttles and attempt counters then count per process, which is looser but keeps the API
  answering). Each opening and closing is logged, and the counters are shown by readiness
  (`/healthz/ready`, `core/health.py`).

It also keeps one Redis client per connection pool: the stock backend builds a new `redis.Redis`
for every operation (its constructor installs ~170 response callbacks), and the throttles call the
cache on every API request. A `redis.Redis` over a connection pool is safe to share between threads.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# A cache call takes well under a millisecond; anything near these bounds means Redis is gone.
SOCKET_CONNECT_TIMEOUT_S = 0.5
SOCKET_TIMEOUT_S = 0.5
CIRCUIT_OPEN_S = 3.0
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)


class CircuitBreaker:
    """Closed: calls go through. Open: calls are refused until `open_s` has passed, then one call
    at a time probes (half-open); its success closes the circuit, its failure opens it again.

    The closed path reads one attribute without the lock: it is on every request."""

    def __init__(self, *, name: str, open_s: float, on_close=None) -> None:
        self.name = name
        self.open_s = open_s
        self._on_close = on_close
        self._lock = threading.Lock()
        self._opened_at: float | None = None  # monotonic; None while closed
        self._opened_wall: datetime | None = None
        self._retry_at = 0.0
        self._probing = False
        self.failures = 0
        self.openings = 0
        self.fallbacks = 0
        self.last_error = ""

    @property
    def is_open(self) -> bool:
        return self._opened_at is not None

    def allow(self) -> bool:
        if self._opened_at is None:
            return True
        with self._lock:
            if self._opened_at is not None and not self._probing and time.monotonic() >= self._retry_at:
                self._probing = True  # this caller probes; the others keep using the fallback
                return True
            return self._opened_at is None

    def succeeded(self) -> None:
        if self._opened_at is None:
            return
        with self._lock:
            if self._opened_at is None:
                return
            outage_s = time.monotonic() - self._opened_at
            self._opened_at, self._opened_wall, self._probing = None, None, False
        logger.warning("%s: reachable again after %.1f s; the per-process fallback is dropped", self.name, outage_s)
        if self._on_close is not None:
            self._on_close()

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            self.failures += 1
            self.last_error = f"{exc.__class__.__name__}: {exc}"[:200]
            self._retry_at = time.monotonic() + self.open_s
            self._probing = False
            opening = self._opened_at is None
            if opening:
                self._opened_at, self._opened_wall = time.monotonic(), datetime.now(UTC)
                self.openings += 1
        if opening:
            logger.warning(
                "%s: unreachable (%s); serving from the per-process fallback, probing every %.0f s",
                self.name, self.last_error, self.open_s,
            )  # fmt: skip

    def count_fallback(self) -> None:
        self.fallbacks += 1  # a lost increment between threads is harmless for a gauge of trouble

    def status(self) -> dict:
        opened = self._opened_wall
        return {
            "state": "open" if opened is not None else "closed",
            "open_since": opened.isoformat() if opened is not None else None,
            "failures": self.failures,
            "circuit_openings": self.openings,
            "fallback_operations": self.fallbacks,
            "last_error": self.last_error,
        }


class _ClientPerPool(RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients_by_pool", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client


def _guarded(name: str):
    redis_operation = getattr(RedisCache, name)

    def operation(self, *args, **kwargs):
        breaker = self.breaker
        if breaker.allow():
            try:
                result = redis_operation(self, *args, **kwargs)
            except UNREACHABLE as exc:
                breaker.failed(exc)
            except Exception:
                breaker.succeeded()  # Redis answered (e.g. incr of a missing key)
                raise
            else:
                breaker.succeeded()
                return result
        breaker.count_fallback()
        return getattr(self.fallback, name)(*args, **kwargs)

    operation.__name__ = name
    operation.__doc__ = f"`{name}` on Redis, or on the per-process fallback while Redis is unreachable."
    return operation


class PooledRedisCache(RedisCache):
    """The cache of the service (settings.CACHES): Redis, failing open to process memory.

    OPTIONS may set `CIRCUIT_OPEN_S` and redis-py's `socket_connect_timeout`/`socket_timeout`."""

    def __init__(self, server, params):
        options = dict(params.get("OPTIONS") or {})
        open_s = float(options.pop("CIRCUIT_OPEN_S", CIRCUIT_OPEN_S))
        options.setdefault("socket_connect_timeout", SOCKET_CONNECT_TIMEOUT_S)
        options.setdefault("socket_timeout", SOCKET_TIMEOUT_S)
        super().__init__(server, {**params, "OPTIONS": options})
        # The fallback makes keys as Redis's side does (same prefix, version and key function).
        same_keys = {key: params[key] for key in ("TIMEOUT", "KEY_PREFIX", "VERSION", "KEY_FUNCTION") if key in params}
        self.fallback = LocMemCache(f"redis-fallback:{server}", {**same_keys, "OPTIONS": {"MAX_ENTRIES": 10_000}})
        self.breaker = CircuitBreaker(
            name=f"cache {_without_password(server)}", open_s=open_s, on_close=self.fallback.clear
        )

    @cached_property
    def _cache(self):
        return _ClientPerPool(self._servers, **self._options)

    def status(self) -> dict:
        return self.breaker.status()

    add = _guarded("add")
    get = _guarded("get")
    set = _guarded("set")
    touch = _guarded("touch")
    delete = _guarded("delete")
    get_many = _guarded("get_many")
    has_key = _guarded("has_key")
    incr = _guarded("incr")
    set_many = _guarded("set_many")
    delete_many = _guarded("delete_many")
    clear = _guarded("clear")


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{sep}{rest}"
