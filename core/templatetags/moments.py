"""The one template filter for moments, for the player's pages and the back office alike."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils.dateparse import parse_datetime

from core.times import moment_text

register = template.Library()


@register.filter
def when(moment: datetime | str | None) -> str:
    """A moment as people read it in the page's language and the service's time zone ("2 Dec 2026,
    04:56:12 UTC": core.times.moment_text), from a datetime or from the RFC 3339 text the selectors
    give the API."""
    if not moment:
        return ""
    if isinstance(moment, str):
        moment = parse_datetime(moment)
        if moment is None:
            return ""
    return moment_text(moment)
