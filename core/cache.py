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

import hashlib
import logging
import os
import secrets
import threading
import time
from datetime import UTC, datetime

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.dispatch import Signal
from django.utils.functional import cached_property
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import ResponseError as RedisResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# A cache call takes well under a millisecond; anything near these bounds means Redis is gone.
SOCKET_CONNECT_TIMEOUT_S = 0.5
SOCKET_TIMEOUT_S = 0.5
CIRCUIT_OPEN_S = 3.0
VERSION_KEEP_S = 86_400  # a version key unused this long goes; one missing means "read it again"
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
                self.name,
                self.last_error,
                self.open_s,
            )

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


# The generic cell rate algorithm, in one Redis call: a key holds the moment its bucket is empty
# again (the "theoretical arrival time"); a request adds `interval` to it, and is refused when that
# would put it more than `burst` ahead of now. It answers 0 (allowed) or the seconds to wait.
_GCRA = """
local now, interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
if tat + interval - now > burst then return tostring(tat + interval - now - burst) end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil((tat + interval - now) * 1000))
return '0'
"""
_GCRA_SHA = hashlib.sha1(_GCRA.encode(), usedforsecurity=False).hexdigest()
# Work paid for after it was done (core/throttling.py's WorkThrottle): `cost` seconds of the rate
# added to the key's arrival time whatever it is, so a caller who overdrew waits it out.
_GCRA_CHARGE = """
local now, cost = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
tat = tat + cost
redis.call('SET', KEYS[1], tostring(tat), 'PX', math.max(1, math.ceil((tat - now) * 1000)))
return tostring(tat - now)
"""
_GCRA_CHARGE_SHA = hashlib.sha1(_GCRA_CHARGE.encode(), usedforsecurity=False).hexdigest()


def _decoded(values: list) -> list[str | None]:
    return [None if value is None else value.decode() for value in values]


def _gcra_in_memory(
    cache: LocMemCache, lock: threading.Lock, key: str, now: float, interval: float, burst: float
) -> float:
    with lock:
        tat = max(cache.get(key) or 0.0, now)
        if tat + interval - now > burst:
            return tat + interval - now - burst
        cache.set(key, tat + interval, timeout=tat + interval - now)
        return 0.0


def _charge_in_memory(cache: LocMemCache, lock: threading.Lock, key: str, now: float, cost: float) -> None:
    with lock:
        tat = max(cache.get(key) or 0.0, now) + cost
        cache.set(key, tat, timeout=max(tat - now, 0.001))


def _window_in_memory(cache, lock: threading.Lock, key: str, ends: float, seconds: float) -> tuple[float, bool]:
    with lock:
        if cache.add(key, ends, timeout=seconds):
            return ends, True
        current = cache.get(key)
        return (ends, False) if current is None else (current, False)


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


class _ThreadConnection(threading.local):
    connection = None
    pid = 0


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
        name = f"cache {_without_password(server)}"
        self.breaker = CircuitBreaker(name=name, open_s=open_s, on_close=self._recovered)

    @cached_property
    def _cache(self):
        return _ClientPerPool(self._servers, **self._options)

    def status(self) -> dict:
        return self.breaker.status()

    @cached_property
    def _thread_connection(self) -> _ThreadConnection:
        return _ThreadConnection()

    def _call(self, *commands: tuple) -> list:
        """`commands` sent together on this thread's own connection, their answers in order. The
        operations on every request (rate limits, versions, nonces, settlement windows) take this
        path: a checkout from redis-py's pool (a lock and a poll of the socket) costs about as much
        CPU as the round trip itself. Raises the first error Redis answered, once all are read."""
        local = self._thread_connection
        connection = local.connection
        if connection is None or local.pid != os.getpid():  # none yet, or inherited across a fork
            pool = self._cache._get_connection_pool(write=True)
            connection = local.connection = pool.connection_class(**pool.connection_kwargs)
            local.pid = os.getpid()
        try:
            connection.send_packed_command(connection.pack_commands(commands), check_health=False)
            answers, refused = [], None
            for _ in commands:
                try:
                    answers.append(connection.read_response())
                except RedisResponseError as exc:  # the connection is still in step: read the rest
                    answers.append(None)
                    refused = refused or exc
        except BaseException:  # out of step with Redis, or gone: the next call connects afresh
            connection.disconnect()
            raise
        if refused is not None:
            raise refused
        return answers

    def _recovered(self) -> None:
        self.fallback.clear()
        cache_recovered.send(sender=type(self), cache=self)

    def _guarded_call(self, *commands: tuple) -> list | None:
        """`_call` behind the circuit breaker: the answers, or None while Redis cannot be reached
        (the caller decides what stands in: process memory, or nothing)."""
        if self.breaker.allow():
            try:
                answers = self._call(*commands)
            except UNREACHABLE as exc:
                self.breaker.failed(exc)
            except RedisResponseError:
                self.breaker.succeeded()  # Redis answered (e.g. a script it does not know yet)
                raise
            else:
                self.breaker.succeeded()
                return answers
        self.breaker.count_fallback()
        return None

    def _add_command(self, key: str, value, timeout: float) -> tuple:
        return ("SET", self.make_key(key), self._cache._serializer.dumps(value), "EX", max(1, int(timeout)), "NX")

    def rate_limit(self, key: str, *, interval_s: float, burst_s: float) -> float:
        """One request against the rate of `key` (one request per `interval_s`, bursts up to
        `burst_s` worth): 0 if it is allowed, else the seconds until one would be. One Redis call."""
        now = time.time()
        name = self.make_key(key)
        try:
            answers = self._guarded_call(("EVALSHA", _GCRA_SHA, 1, name, now, interval_s, burst_s))
        except NoScriptError:  # Redis does not know the script yet (e.g. after a restart)
            answers = self._guarded_call(("EVAL", _GCRA, 1, name, now, interval_s, burst_s))
        if answers is not None:
            return float(answers[0])
        return _gcra_in_memory(self.fallback, self._fallback_lock, key, now, interval_s, burst_s)

    def rate_charge(self, key: str, *, seconds: float) -> None:
        """Add `seconds` of the rate to `key`'s arrival time, allowed or not (work paid for after
        it was done). One Redis call."""
        now = time.time()
        name = self.make_key(key)
        try:
            answers = self._guarded_call(("EVALSHA", _GCRA_CHARGE_SHA, 1, name, now, seconds))
        except NoScriptError:
            answers = self._guarded_call(("EVAL", _GCRA_CHARGE, 1, name, now, seconds))
        if answers is None:
            _charge_in_memory(self.fallback, self._fallback_lock, key, now, seconds)

    def add_shared(self, key: str, value, timeout: float) -> bool | None:
        """`add` where only Redis will do (a value every process must see, like a used nonce):
        True if added, False if the key was there, None when Redis cannot be reached (the
        caller records it somewhere shared instead: no per-process fallback here)."""
        answers = self._guarded_call(self._add_command(key, value, timeout))
        return None if answers is None else bool(answers[0])

    def window_open(self, key: str, *, seconds: float) -> tuple[float, bool]:
        """Open a window of `seconds` on `key` unless one is open: (when the open window ends, as
        a Unix time; whether this call opened it). One Redis round trip (SET NX PX, then GET)."""
        ends = time.time() + seconds
        name = self.make_key(key)
        answers = self._guarded_call(("SET", name, repr(ends), "PX", max(1, int(seconds * 1000)), "NX"), ("GET", name))
        if answers is None:
            return _window_in_memory(self.fallback, self._fallback_lock, key, ends, seconds)
        opened, current = answers
        if opened or current is None:
            return ends, bool(opened)
        return float(current), False

    def versions(self, keys: list[str], *, create: bool = False) -> list[str | None] | None:
        """The current values of these version keys (`versions_bump`), one Redis round trip;
        `create`: a missing one is set to a new random value first (SET NX, then MGET), so that
        whatever is remembered with it can be checked later. None when Redis cannot be reached:
        no per-process fallback (a version only means something if every process sees it)."""
        names = [self.make_key(key) for key in keys]
        new = secrets.token_hex(8)
        made = [("SET", name, new, "EX", VERSION_KEEP_S, "NX") for name in names] if create else []
        answers = self._guarded_call(*made, ("MGET", *names))
        return None if answers is None else _decoded(answers[-1])

    def versions_and_add_shared(
        self, keys: list[str], key: str, value, timeout: float
    ) -> tuple[list[str | None] | None, bool | None]:
        """`versions(keys)` and `add_shared(key, value, timeout)` in one round trip (a partner's
        request: what authentication remembers of it, and its nonce). (None, None) when Redis
        cannot be reached."""
        answers = self._guarded_call(
            ("MGET", *(self.make_key(name) for name in keys)), self._add_command(key, value, timeout)
        )
        return (None, None) if answers is None else (_decoded(answers[0]), bool(answers[1]))

    def versions_bump(self, keys: list[str]) -> bool:
        """Give each of these version keys a new random value: whatever was remembered with the old
        one, in any process, is out of date at once. False when Redis cannot be reached."""
        bumps = [("SET", self.make_key(key), secrets.token_hex(8), "EX", VERSION_KEEP_S) for key in keys]
        return self._guarded_call(*bumps) is not None

    @cached_property
    def _fallback_lock(self) -> threading.Lock:
        return threading.Lock()

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


# Sent when Redis answers again after an outage: whoever kept shared state elsewhere meanwhile
# (what authentication remembers, accounts/signals.py) puts it back. Receivers must not raise.
cache_recovered = Signal()

_local_locks: dict[int, threading.Lock] = {}


def cache_add_shared(cache, key: str, value, timeout: float) -> bool | None:
    """`PooledRedisCache.add_shared` on any cache; a cache in process memory is shared by nobody,
    so there it is None, like Redis out of reach."""
    add_shared = getattr(cache, "add_shared", None)  # through django.core.cache's proxy too
    return None if add_shared is None else add_shared(key, value, timeout)


def cache_versions(cache, keys: list[str], *, create: bool = False) -> list[str | None] | None:
    """`PooledRedisCache.versions` on any cache; a cache in process memory is shared by nobody, so
    there it is None, like Redis out of reach (nothing can be remembered against it)."""
    versions = getattr(cache, "versions", None)  # through django.core.cache's proxy too
    return None if versions is None else versions(keys, create=create)


def cache_versions_and_add_shared(cache, keys: list[str], key: str, value, timeout: float):
    """`PooledRedisCache.versions_and_add_shared` on any cache ((None, None) in process memory)."""
    both = getattr(cache, "versions_and_add_shared", None)
    return (None, None) if both is None else both(keys, key, value, timeout)


def cache_versions_bump(cache, keys: list[str]) -> bool:
    """`PooledRedisCache.versions_bump` on any cache (False for a cache in process memory)."""
    bump = getattr(cache, "versions_bump", None)
    return False if bump is None else bump(keys)


def cache_rate_limit(cache, key: str, *, interval_s: float, burst_s: float) -> float:
    """`PooledRedisCache.rate_limit` on any cache (a cache in process memory counts per process)."""
    rate_limit = getattr(cache, "rate_limit", None)  # through django.core.cache's proxy too
    if rate_limit is not None:
        return rate_limit(key, interval_s=interval_s, burst_s=burst_s)
    lock = _local_locks.setdefault(id(cache), threading.Lock())
    return _gcra_in_memory(cache, lock, key, time.time(), interval_s, burst_s)


def cache_rate_charge(cache, key: str, *, seconds: float) -> None:
    """`PooledRedisCache.rate_charge` on any cache (a cache in process memory counts per process)."""
    rate_charge = getattr(cache, "rate_charge", None)
    if rate_charge is not None:
        rate_charge(key, seconds=seconds)
        return
    lock = _local_locks.setdefault(id(cache), threading.Lock())
    _charge_in_memory(cache, lock, key, time.time(), seconds)


def cache_window_open(cache, key: str, *, seconds: float) -> tuple[float, bool]:
    """`PooledRedisCache.window_open` on any cache (a cache in process memory: per process)."""
    window_open = getattr(cache, "window_open", None)  # through django.core.cache's proxy too
    if window_open is not None:
        return window_open(key, seconds=seconds)
    lock = _local_locks.setdefault(id(cache), threading.Lock())
    return _window_in_memory(cache, lock, key, time.time() + seconds, seconds)


def _without_password(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{sep}{rest}"
