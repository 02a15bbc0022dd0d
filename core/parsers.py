"""The API's one parser: JSON (API.md), refusing bodies no request needs and no server should recurse
into, and objects that name a key twice (which value would count is up to each parser that reads
them: the idempotency check, a proxy and the service could each see a different request)."""

from __future__ import annotations

import codecs
import json

from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from core.errors import InvalidInput

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


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def _object_of_unique_keys(pairs: list[tuple[str, object]]) -> dict:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return found


def json_loads_strict(text: str | bytes):
    """JSON as the API reads it: no NaN or Infinity, no object naming a key twice (`DuplicateKey`);
    any refusal is a ValueError (RecursionError beyond a thousand levels, as `json.loads`)."""
    return json.loads(text, parse_constant=strict_constant, object_pairs_hook=_object_of_unique_keys)


class JsonParser(JSONParser):
    """JSON as DRF parses it (strict: no NaN or Infinity), refusing an object that names a key
    twice (`invalid_input` naming the key) and bodies nested too deeply: Python's decoder raises
    RecursionError beyond about a thousand levels, which would be a 500."""

    def _load(self, stream, parser_context):
        decoded = codecs.getreader(get_encoding(parser_context or {}))(stream)
        try:
            return json.load(decoded, parse_constant=strict_constant, object_pairs_hook=_object_of_unique_keys)
        except DuplicateKey as exc:
            key = json.dumps(exc.key[:64])[1:-1]  # as JSON writes it (ASCII): any text a client sent
            text = gettext("%(key)s: the key appears more than once in one JSON object") % {"key": key}
            raise InvalidInput(text, errors={key: [gettext("This key appears more than once.")]}) from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = self._load(stream, parser_context)
        except RecursionError:
            data = None
            too_deep = True
        else:
            too_deep = _depth(data) > MAX_JSON_DEPTH
        if too_deep:
            raise ParseError(gettext("JSON nested more than %(depth)s levels deep") % {"depth": MAX_JSON_DEPTH})
        return data
