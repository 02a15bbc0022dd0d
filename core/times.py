"""Times in the API are RFC 3339 UTC strings ("2026-11-29T16:45:00.123456Z")."""

from __future__ import annotations

from datetime import datetime


def rfc3339(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None
