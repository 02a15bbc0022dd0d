"""Calls to partners' servers: signed POSTs (webhooks now, seamless-wallet calls too), to public
addresses only, never following a redirect.

API.md, "Calls to partners' servers". Why each rule:

* A partner chooses the URL, so a URL is a way into our own network: one that resolves to a
  loopback, private, link-local (cloud metadata at 169.254.169.254) or any other non-global
  address is refused, when it is saved (`outbound_url_validate`) and again at every call, unless
  `settings.OUTBOUND_ALLOW_PRIVATE` (development and tests, from the environment).
* A name is resolved once per call and the connection goes to the address that was checked, with
  the name in the Host header and in TLS (SNI and the certificate check): a name that answers a
  public address to the check and 127.0.0.1 to the connection (DNS rebinding) gains nothing.
* A redirect is never followed: a 3xx is a failed call. Following one would send the signed body
  to wherever the partner's server (or whoever took it over) points, past the address check.
* Connect and read timeouts are explicit, and at most `MAX_ANSWER_BYTES` of an answer are read.

Signature (API.md, as for webhooks): X-Timestamp, X-Nonce and X-Signature =
hex(HMAC-SHA256(secret, "{timestamp}.{nonce}.POST.{path of the URL}.{body}")).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import urllib3
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 5.0
MAX_ANSWER_BYTES = 64 * 1024
USER_AGENT = "casino-war/1"
DEFAULT_PORTS = {"http": 80, "https": 443}
NAT64 = ipaddress.ip_network("64:ff9b::/96")

# One pool per (address, port, name): connections are kept alive between calls to the same
# partner, and a pool is only ever for the address that was checked for that name.
# As many kept connections per pool as a process has threads calling at once (gunicorn's 8, with
# room): with fewer, urllib3 discards the extra ones ("Connection pool is full") and every call
# beyond them opens a new connection.
_pools = urllib3.PoolManager(num_pools=64, maxsize=16, retries=False)


class OutboundRefused(Exception):
    """The URL may not be called; `reason` says why, for the delivery's record."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class OutboundAnswer:
    """What came of one call. `status_code` is None when no answer came (refused, unreachable,
    timed out); `error` says what went wrong, empty only for a 2xx answer read whole: `ok`."""

    status_code: int | None
    body: bytes
    error: str
    refused: bool
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300 and not self.error


def request_signature(*, secret: str, timestamp: str, nonce: str, method: str, path: str, body: bytes) -> str:
    message = f"{timestamp}.{nonce}.{method}.{path}.".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address is not a public one, or None when it is."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            inner = address_refusal(embedded)
            return f"{inner} (inside the IPv6 address)" if inner else None
    for kind in ("unspecified", "loopback", "link_local", "multicast", "private", "reserved", "site_local"):
        if getattr(address, f"is_{kind}", False):
            return f"a {kind.replace('_', '-')} address"
    if not address.is_global:
        return "not a global address"
    return None


class _Unresolved(Exception):
    """The name does not resolve now: a failed call (retried), not a refusal."""


@dataclass(frozen=True)
class _Target:
    parts: SplitResult
    host: str  # the name as sent in Host and SNI (IDNA, ASCII)
    port: int
    address: str  # the checked address the connection goes to


def _parse(url: str) -> tuple[SplitResult, str, int]:
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise OutboundRefused("only http and https URLs with a host are called")
    if parts.username is not None or parts.password is not None:
        raise OutboundRefused("a URL with a user name or password is not called")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
        host = parts.hostname.encode("idna").decode("ascii")
    except (ValueError, UnicodeError):
        raise OutboundRefused("the URL's host or port is invalid") from None
    return parts, host, port


def _resolve(url: str) -> _Target:
    """Resolve the URL's host once; every address it resolves to must be public (unless allowed)."""
    parts, host, port = _parse(url)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise _Unresolved(f"{host} does not resolve ({exc})") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise _Unresolved(f"{host} does not resolve")
    if not settings.OUTBOUND_ALLOW_PRIVATE:
        for address in addresses:
            reason = address_refusal(ipaddress.ip_address(address))
            if reason:
                raise OutboundRefused(f"{host} resolves to {address}, {reason}; only public addresses are called")
    return _Target(parts=parts, host=host, port=port, address=addresses[0])


def outbound_url_validate(url: str) -> None:
    """When a partner's URL is saved (partner_create, the admin): the same refusals as at call time,
    and a name that does not resolve. With OUTBOUND_ALLOW_PRIVATE any well-formed http(s) URL passes."""
    if not url:
        return
    try:
        _parse(url)
        if settings.OUTBOUND_ALLOW_PRIVATE:
            return
        _resolve(url)
    except OutboundRefused as exc:
        raise ValidationError(
            gettext_lazy("This URL is not accepted: %(reason)s."),
            code="outbound_refused",
            params={"reason": exc.reason},
        ) from None
    except _Unresolved as exc:
        raise ValidationError(
            gettext_lazy("This URL's host does not resolve: %(reason)s."),
            code="outbound_unresolved",
            params={"reason": str(exc)},
        ) from None


def outbound_post(
    *,
    url: str,
    secret: str,
    nonce: str,
    body: bytes,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    read_timeout: float = READ_TIMEOUT_S,
) -> OutboundAnswer:
    """POST `body` (JSON) to a partner's `url`, signed with `secret` and `nonce`. Never raises for
    what the network or the partner does: the answer says what happened."""
    started = time.perf_counter()

    def answer(status_code=None, body=b"", error="", refused=False) -> OutboundAnswer:
        elapsed = int((time.perf_counter() - started) * 1000)
        return OutboundAnswer(status_code, body, error[:300], refused, elapsed)

    try:
        target = _resolve(url)
    except OutboundRefused as exc:
        return answer(error=f"refused: {exc.reason}", refused=True)
    except _Unresolved as exc:
        return answer(error=str(exc))
    parts = target.parts
    timestamp = str(int(time.time()))
    host = f"[{target.host}]" if ":" in target.host else target.host  # an IPv6 literal
    headers = {
        "Host": host if DEFAULT_PORTS[parts.scheme] == target.port else f"{host}:{target.port}",
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Timestamp": timestamp,
        "X-Nonce": nonce,
        "X-Signature": request_signature(
            secret=secret, timestamp=timestamp, nonce=nonce, method="POST", path=parts.path or "/", body=body
        ),
    }
    pool_kwargs = {"server_hostname": target.host, "assert_hostname": target.host} if parts.scheme == "https" else {}
    request_target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    response = None
    try:
        pool = _pools.connection_from_host(target.address, target.port, parts.scheme, pool_kwargs=pool_kwargs)
        response = pool.urlopen(
            "POST",
            request_target,
            body=body,
            headers=headers,
            retries=False,
            redirect=False,
            assert_same_host=False,
            preload_content=False,
            timeout=urllib3.Timeout(connect=connect_timeout, read=read_timeout),
        )
        content = response.read(MAX_ANSWER_BYTES + 1, decode_content=False)
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        if response is not None:
            response.close()
            response.release_conn()
        return answer(error=f"{exc.__class__.__name__}: {exc}")
    oversized = len(content) > MAX_ANSWER_BYTES
    if oversized:
        response.close()  # the rest is never read: the connection is not reused
    response.release_conn()
    status = response.status
    if oversized:
        return answer(status, content[:MAX_ANSWER_BYTES], f"HTTP {status}: an answer over {MAX_ANSWER_BYTES} bytes")
    if 300 <= status < 400:
        location = response.headers.get("Location", "")
        return answer(status, content, f"HTTP {status}: redirects are not followed (Location: {location})")
    if not 200 <= status < 300:
        return answer(status, content, f"HTTP {status}")
    return answer(status, content)
