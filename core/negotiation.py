"""DRF's content negotiation, its choice remembered.

DRF parses the request's Accept header and matches it against every renderer on each request, a
tenth of a millisecond of a round's CPU (docs/BENCHMARKS.md) for an answer that depends only on the
header, the format asked for and the view's renderers. The choice is remembered per process for
each such combination, up to KEPT of them (the header is the caller's to choose); a request with a
query string (`?format=`) and a refusal (406) are decided by DRF each time.
"""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation

KEPT = 256


class RememberedContentNegotiation(DefaultContentNegotiation):
    _chosen: dict[tuple, tuple[type, str]] = {}  # (Accept, format suffix, renderer classes) -> (class, media type)

    def select_renderer(self, request, renderers, format_suffix=None):
        meta = request._request.META
        if meta.get("QUERY_STRING"):
            return super().select_renderer(request, renderers, format_suffix)
        key = (meta.get("HTTP_ACCEPT"), format_suffix, tuple(type(renderer) for renderer in renderers))
        chosen = self._chosen.get(key)
        if chosen is not None:
            kind, media_type = chosen
            for renderer in renderers:
                if type(renderer) is kind:
                    return renderer, media_type
        renderer, media_type = super().select_renderer(request, renderers, format_suffix)
        if len(self._chosen) < KEPT:
            self._chosen[key] = (type(renderer), media_type)
        return renderer, media_type
