"""Who is calling, by network address: what rate limits, attempt counters and the audit log count by.

`X-Forwarded-For` is whatever the caller wrote, except for the hops that a proxy of ours added. So
the address is the TCP peer's (`REMOTE_ADDR`), unless that peer is one of `TRUSTED_PROXIES` (the
operator's reverse proxies and load balancers, addresses or networks): then each trusted proxy has
appended the address it was talking to, and the client is the right-most hop that is not a
trusted proxy. Hops further left were written by the client and are never read: a caller who
writes a new address into every request still counts as one caller.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
ADDRESS_MAX_LENGTH = 45  # the longest text form of an IPv6 address (with an embedded IPv4 one)


def trusted_proxies_parse(values: Iterable[str]) -> tuple[Network, ...]:
    """The TRUSTED_PROXIES setting's items (`10.0.0.7`, `10.0.0.0/8`, `fd00::/8`) as networks."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES: {value!r} is neither an IP address nor a network such as 10.0.0.0/8"
            ) from None
    return tuple(networks)


@functools.lru_cache(maxsize=4)
def _networks(values: tuple[str, ...]) -> tuple[Network, ...]:
    return trusted_proxies_parse(values)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [2001:db8::1]:443
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 198.51.100.7:443
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address, networks: tuple[Network, ...]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_address(request) -> str:
    """The caller's address as text ("" when unknown), per the module's rules."""
    if request is None:
        return ""
    meta = request.META
    remote = meta.get("REMOTE_ADDR", "") or ""
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    peer = _address(remote)
    if not networks or peer is None or not _trusted(peer, networks):
        return remote[:ADDRESS_MAX_LENGTH]
    closest = peer  # the last address known to be a trusted proxy's
    for hop in reversed((meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")):
        address = _address(hop)
        if address is None:
            break  # no trusted proxy writes this: what is left of it is the caller's own text
        if not _trusted(address, networks):
            return str(address)
        closest = address
    return str(closest)  # every hop was a proxy of ours (or unreadable): count by the proxy
