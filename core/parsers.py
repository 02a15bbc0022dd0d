"""The API's one parser: JSON (API.md), refusing bodies no request needs and no server should recurse into."""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 32  # far beyond any request's shape; deeper bodies are refused, never recursed into


def _depth(value: object) -> int:
    """How deeply `value` nests, walked without recursion (so no body can exhaust the stack)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        pending.extend((child, depth + 1) for child in item)
    return deepest


class JsonParser(JSONParser):
    """DRF's JSON parser (strict: no NaN or Infinity), refusing bodies nested too deeply: Python's
    decoder raises RecursionError beyond about a thousand levels, which would be a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
            too_deep = True
        else:
            too_deep = _depth(data) > MAX_JSON_DEPTH
        if too_deep:
            raise ParseError(gettext("JSON nested more than %(depth)s levels deep") % {"depth": MAX_JSON_DEPTH})
        return data


