"""The sites that may frame a partner's game sessions (API.md "Game launch", `partner_create
--origin`): origins as browsers write them, which `Content-Security-Policy: frame-ancestors`
lists exactly."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext

from core.errors import InvalidInput

ORIGIN_PATTERN = re.compile(r"\A[a-z0-9.-]+(:[0-9]{1,5})?\Z")
MAX_ORIGINS = 20


def _private_allowed() -> bool:
    return settings.OUTBOUND_ALLOW_PRIVATE


def origin_normalize(text: str) -> str:
    """`https://host[:port]` (or `http://` with OUTBOUND_ALLOW_PRIVATE) as browsers write an
    origin: lower case, no default port, no path; anything else is `invalid_input`."""
    if not isinstance(text, str) or not text or len(text) > 300:
        raise InvalidInput(gettext("an origin is https://host or https://host:port"))
    parts = urlsplit(text.strip())
    schemes = ("https", "http") if _private_allowed() else ("https",)
    host = (parts.netloc or "").lower()
    if parts.scheme.lower() not in schemes or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise InvalidInput(
            gettext("an origin is https://host or https://host:port, without a path: %(origin)r") % {"origin": text}
        )
    if "@" in host or not ORIGIN_PATTERN.match(host) or "*" in host:
        raise InvalidInput(gettext("an origin names one host: %(origin)r") % {"origin": text})
    scheme = parts.scheme.lower()
    default = {"https": ":443", "http": ":80"}[scheme]
    return f"{scheme}://{host.removesuffix(default)}"


def origins_check(origins) -> list[str]:
    """The origins, each normalized, without repeats, in the order given."""
    if not isinstance(origins, list | tuple):
        raise InvalidInput(gettext("origins are a list of https://host[:port]"))
    checked: list[str] = []
    for origin in origins:
        normal = origin_normalize(origin)
        if normal not in checked:
            checked.append(normal)
    if len(checked) > MAX_ORIGINS:
        raise InvalidInput(gettext("a partner has at most 20 origins"))
    return checked
