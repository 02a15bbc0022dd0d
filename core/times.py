"""Times in the API are RFC 3339 UTC strings ("2026-11-29T16:45:00.123456Z"); people read a moment
as their language writes it, with the time zone (`moment_text`, config/formats)."""

from __future__ import annotations

from datetime import datetime

from django.utils import formats, timezone


def rfc3339(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def moment_text(value: datetime | None) -> str:
    """A moment in the service's time zone as the active language writes it: "2 Dec 2026, 04:56:12
    UTC", "02/12/2026 04:56:12 UTC" (DATETIME_FORMAT of config/formats). The one way pages, the
    back office and its tables write a time."""
    if value is None:
        return ""
    return formats.date_format(timezone.localtime(value), "DATETIME_FORMAT")
