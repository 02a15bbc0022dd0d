"""API rate limits: DRF's throttles, counted by the generic cell rate algorithm in one cache call.

DRF's own throttles keep every request's time in a list that they read, unpickle, append to and
write back on each request: two Redis round trips and, at a partner's 12,000 requests a minute, a
list of 12,000 floats. Here a rate `N/period` allows N requests at once and one more every
period/N after that, and one Redis call (`core.cache.cache_rate_limit`) both counts and decides;
the cache fails open to process memory while Redis is down (core/cache.py).
"""

from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from core.cache import cache_rate_charge, cache_rate_limit
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


class WorkThrottle(CellRateThrottle):
    """A budget of work rather than of requests: "N/period" is N units of work (battles replayed,
    say) per period and caller. A request is let in while its caller's budget is not overdrawn
    (it takes one unit on the way in); the view then `charge`s what the request cost, which may
    overdraw the budget: the caller's next requests wait (429, Retry-After) until the rate has
    paid it back. No request can cost more than the view bounds it to, so a caller's work per
    period is at most N plus one request's."""

    def charge(self, request, view, units: int) -> None:
        if self.rate is None or units <= 1:
            return
        key = self.get_cache_key(request, view)
        if key is not None:
            cache_rate_charge(self.cache, key, seconds=(units - 1) * self.duration / self.num_requests)


def throttles_charge(request, view, units: int) -> None:
    """Charge `units` of work to every WorkThrottle of the view (after the work was done)."""
    for throttle in view.get_throttles():
        if isinstance(throttle, WorkThrottle):
            throttle.charge(request, view, units)
