"""API rate limits: DRF's throttles, counted by the generic cell rate algorithm in one cache call.

DRF's own throttles keep every request's time in a list that they read, unpickle, append to and
write back on each request: two Redis round trips and, at a partner's 12,000 requests a minute, a
list of 12,000 floats. Here a rate `N/period` allows N requests at once and one more every
period/N after that, and one Redis call (`core.cache.cache_rate_limit`) both counts and decides;
the cache fails open to process memory while Redis is down (core/cache.py).
"""

from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from core.cache import cache_rate_limit
from core.client_address import client_address


class CellRateThrottle(SimpleRateThrottle):
    """A SimpleRateThrottle (same scopes, rates and cache keys) that decides in one cache call."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.wait_s = cache_rate_limit(
            self.cache, self.key, interval_s=self.duration / self.num_requests, burst_s=self.duration
        )
        return self.wait_s == 0

    def wait(self) -> float:
        return self.wait_s

    def get_ident(self, request) -> str:
        """The caller's address (core/client_address.py): DRF's own reads X-Forwarded-For as the
        caller wrote it, so a new forged address per request would pass any limit."""
        return client_address(request)


class PlayerRateThrottle(CellRateThrottle, UserRateThrottle):
    """Requests per signed-in player (scope `user`), or per address for anyone else."""


class AnonymousRateThrottle(CellRateThrottle, AnonRateThrottle):
    """Requests per address from callers who are not signed in (scope `anon`)."""
