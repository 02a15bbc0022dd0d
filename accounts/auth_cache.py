"""Who a request's credentials name, remembered for a few seconds by the process that read them,
so that a player's or a partner's requests do not each read the database for it (docs/BENCHMARKS.md).

Each entry is remembered under a version: a random value Redis keeps for what the request names
(a token's digest, a partner's key, a partner's player), read before the database is. An entry is
used only while its version is still the current one; checking that is one Redis round trip for
all the entries a request needs. Whatever ends or changes what an entry says gives its version a
new value once it has committed (`auth_forget`): a revoked token (sign-out, exclusion, a password
change, too many sign-ins) and any saved user, player or partner. Every process then stops using
the entry at once. A request that read the database before such a commit did so under the old
version, so what it remembered is out of date from the start.

Nothing but random version values goes to Redis: no secret, no password hash. When Redis cannot
be reached, nothing is remembered and nothing remembered is used: every request reads the
database. An entry is kept at most REMEMBER_S, and a process forgets all of its entries when Redis
answers again after an outage, so a version change that failed meanwhile cannot leave one in use.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TypeVar

from django.core.cache import cache

from core import clock
from core.after_commit import after_commit
from core.cache import cache_versions, cache_versions_bump

REMEMBER_S = 10.0
_REMEMBER = timedelta(seconds=REMEMBER_S)
MAX_ENTRIES = 20_000  # per process; the least recently remembered go first
T = TypeVar("T")

# what a request names -> (the time (core.clock) it is kept until, the versions it was read under, the value)
_entries: OrderedDict[str, tuple[datetime, tuple[str, ...], object]] = OrderedDict()
_lock = threading.Lock()


def token_name(digest: str) -> str:
    return f"auth:token:{digest}"


def partner_name(key_id: str) -> str:
    return f"auth:partner:{key_id}"


def partner_player_name(key_id: str, external_id: str) -> str:
    return f"auth:partner-player:{key_id}:{external_id}"


def auth_remembered(key: str, depends_on: list[str]) -> object | None:
    """The value remembered under `key`, if it is there and every version it was read under (one
    for each of `depends_on`) is still the current one; else None."""
    kept = auth_kept(key)
    return None if kept is None else auth_current(kept, cache_versions(cache, depends_on))


def auth_kept(key: str) -> tuple[tuple[str, ...], object] | None:
    """The entry remembered under `key`, not checked yet: (the versions it was read under, the
    value). For a caller that checks the versions in a round trip it makes anyway (`auth_current`)."""
    entry = _entries.get(key)
    if entry is None or entry[0] < clock.now():
        return None
    return entry[1], entry[2]


def auth_current(kept: tuple[tuple[str, ...], object], current: list[str | None] | None) -> object | None:
    """The kept entry's value if `current` (the versions now, as Redis answered) are the ones it was read under."""
    versions, value = kept
    return value if current is not None and tuple(current) == versions else None


def auth_read(key: str, depends_on: list[str], read: Callable[[], T | None], value: Callable[[T], object]) -> T | None:
    """`read()` from the database, and remember `value(what it read)` under `key`, with the
    versions of `depends_on` as they were before the read. Nothing is remembered when the read
    found nothing or Redis cannot be reached."""
    versions = cache_versions(cache, depends_on, create=True)
    found = read()
    if found is None or versions is None or None in versions:
        return found
    with _lock:
        _entries[key] = (clock.now() + _REMEMBER, tuple(versions), value(found))
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return found


def auth_forget(names: list[str]) -> bool:
    """Whatever any process remembers that depends on `names` is out of date from now on. Call it
    after the change has committed. False if Redis could not be reached (then nothing could be
    remembered meanwhile, and every process forgets everything once Redis answers again)."""
    return cache_versions_bump(cache, names) if names else True


def auth_forget_with_commit(names: list[str], *, what: str) -> None:
    """`auth_forget` now and once the current transaction commits: an entry read between the two
    (the database not changed yet, for its reader) is out of date as well, and until the commit no
    process uses what it remembered before."""
    auth_forget(names)
    after_commit(lambda: auth_forget(names), what=f"forgetting what authentication remembers of {what}")


def auth_forget_everything() -> None:
    """This process's entries, all of them (Redis answers again after an outage)."""
    with _lock:
        _entries.clear()
