"""Counting failed attempts (sign-ins, sign-ups) per key in the cache, to slow down guessing, and
the password hashes a caller may make us compute.

The API has DRF's throttles; the web forms use this. Counts live in the cache (Redis when
configured), so every web process sees the same numbers."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache

from core.cache import cache_rate_limit

WINDOW_S = 15 * 60


def _key(key: str) -> str:
    # Keys hold what callers typed (any length, any characters): the cache sees a fixed-size digest.
    return "attempts:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def attempts_exhausted(*, key: str, limit: int) -> bool:
    return (cache.get(_key(key)) or 0) >= limit


def attempt_failed(*, key: str, window_s: int = WINDOW_S) -> int:
    """Count one failure; the window starts with the first failure."""
    if cache.add(_key(key), 1, timeout=window_s):
        return 1
    try:
        return cache.incr(_key(key))
    except ValueError:  # expired between add and incr
        cache.add(_key(key), 1, timeout=window_s)
        return 1


def attempts_clear(*, key: str) -> None:
    cache.delete(_key(key))


def password_check_allowed(*, address: str) -> bool:
    """One password hash (a sign-in, a sign-up, a staff sign-in: each costs a third of a second of
    CPU, a wrong name too) for the caller at `address`, within PASSWORD_CHECKS_PER_MINUTE: more
    is refused before any hashing, whatever names and passwords the caller tries."""
    per_minute = settings.PASSWORD_CHECKS_PER_MINUTE
    return cache_rate_limit(cache, _key(f"password-checks:{address}"), interval_s=60 / per_minute, burst_s=60) == 0
