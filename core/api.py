"""What every app's HTTP surface shares: JSON in and out, strict input fields, one declared shape
per request that both validates it and documents it, one per answer (core/shapes.py) that both
makes it and documents it, problem responses, and pages.

Views validate with `validated(Shape, request.data)`, call one service and send its declared
answer (`answer(...)`; `schema_of(...)` in `extend_schema`). A field
error whose code names a contract error (`invalid_amount`, `unknown_table`...) becomes that
error; any other is `invalid_input`. A web page that changes the same things (the protection
forms) validates with the same shapes.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable, Iterator

from django.core.validators import RegexValidator
from django.utils.translation import get_language, gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from core.errors import InvalidInput
from core.problems import PROBLEM_CONTENT_TYPE, ProblemShape
from core.shapes import page_of, schema_of, wire, wire_list
from core.text import PRINTABLE_TEXT

# --- Strict fields --------------------------------------------------------------------------------
# DRF's fields coerce: IntegerField takes "10", 10.0 and true; CharField takes numbers and trims
# spaces; ChoiceField takes "6" for 6. The API takes JSON values as they are typed.


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: not a boolean, a float or a string of digits."""

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A JSON string, taken as sent (no trimming). DRF already refuses NUL and lone surrogates."""

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices, of the same JSON type (6 is a choice, "6" and 6.0 are not)."""

    def to_internal_value(self, data):
        for choice in self.choices:
            if type(choice) is type(data) and choice == data:
                return choice
        self.fail("invalid_choice", input=data)


class EnumField(StrictChoiceField):
    """One of an enumeration's values (a plain Enum, or Django's TextChoices), returned as its member."""

    def __init__(self, enum, **kwargs):
        self.enum = enum
        super().__init__(choices=[(member.value, getattr(member, "label", member.value)) for member in enum], **kwargs)

    def to_internal_value(self, data):
        return self.enum(super().to_internal_value(data))

    def to_representation(self, value):
        return self.enum(value).value


class PrintableTextField(StrictCharField):
    """Text without control characters: what a person could have typed."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(RegexValidator(PRINTABLE_TEXT, gettext_lazy("Control characters are not allowed.")))


# --- Declared shapes validate -------------------------------------------------------------------


def _field_errors(errors, path: str = "") -> Iterator[tuple[str, ErrorDetail]]:
    """Every (field path, error) of a serializer's errors, in field order."""
    if isinstance(errors, dict):
        for name, nested in errors.items():
            yield from _field_errors(nested, f"{path}.{name}" if path else str(name))
    elif isinstance(errors, list):
        for nested in errors:
            yield from _field_errors(nested, path)
    else:
        yield path, errors


def _contract_input_errors() -> dict[str, type[InvalidInput]]:
    found: dict[str, type[InvalidInput]] = {}
    pending = [InvalidInput]
    while pending:
        error = pending.pop()
        if error.status == 400:
            found.setdefault(error.code, error)
        pending.extend(error.__subclasses__())
    return found


def input_error(errors) -> InvalidInput:
    """The service error for a shape's field errors: the first one that names a contract code
    (a field raised it with that code) gives its class; otherwise `invalid_input`. All of them
    travel in `errors`."""
    contract = _contract_input_errors()
    listed = list(_field_errors(errors))
    for _path, detail in listed:
        error = contract.get(getattr(detail, "code", None))
        if error is not None and error is not InvalidInput:
            return error(str(detail), errors=errors)
    if not listed:
        return InvalidInput(errors=errors)
    path, detail = listed[0]
    text = str(detail) if path in ("", "non_field_errors") else f"{path}: {detail}"
    return InvalidInput(text, errors=errors)


def _unknown_fields(serializer: serializers.Serializer, data: object, path: str = "") -> Iterator[str]:
    """The paths of the keys of `data` that the shape does not declare (nested shapes too)."""
    if not isinstance(data, dict):
        return
    fields = {name: field for name, field in serializer.fields.items() if not field.read_only}
    for key, value in data.items():
        field = fields.get(key)
        shown = json.dumps(str(key)[:64])[1:-1]  # as JSON writes it (ASCII): any text a client sent
        if field is None:
            yield f"{path}.{shown}" if path else shown
        elif isinstance(field, serializers.Serializer):
            yield from _unknown_fields(field, value, f"{path}.{shown}" if path else shown)


# Per thread: (shape, language) -> the shape's fields, made and bound once (`_shape_fields`).
_fields_made = threading.local()


def _shape_fields(shape: type[serializers.Serializer]) -> dict:
    """The fields of `shape`, made once per thread and language for every request to validate with.

    DRF makes each field of a serializer anew for every instance (a deep copy of the declared
    fields, each field built again from its arguments): most of `validated`'s time, on every
    request with a body. A field keeps nothing of a validation (the values and errors live in the
    serializer validating), so one instance's fields serve the next. Per thread: no two requests
    use a field at the same moment. Per language: a field formats some of its messages once (DRF's
    `lazy_format`: max_length, min_value...) in the language active then, and keeps that text."""
    made = _fields_made.__dict__
    key = (shape, get_language())
    fields = made.get(key)
    if fields is None:
        fields = made[key] = shape().fields
    return fields


def validated(shape: type[serializers.Serializer], data: object, **context) -> dict:
    """The request's values, as the shape declares them, or the service error that refuses them.
    A field the shape does not declare is refused (`invalid_input` naming it), never ignored: a
    client that sends `currency` on a transfer or misspells `tie_bet` learns it at once."""
    serializer = shape(data=data, context=context)
    if not context:  # a field reads its own serializer's context: with a context, DRF's fields, made anew
        serializer.fields = _shape_fields(shape)
    unknown = list(itertools.islice(_unknown_fields(serializer, data), 10))
    if unknown:
        text = gettext("unknown field: %(fields)s") % {"fields": ", ".join(unknown)}
        raise InvalidInput(text, errors={name: [gettext("This field is not accepted here.")] for name in unknown})
    if not serializer.is_valid():
        raise input_error(serializer.errors)
    return serializer.validated_data


# --- Problems, in the schema ----------------------------------------------------------------------


def problems(*statuses: int) -> dict:
    """Schema responses: these statuses answer `application/problem+json`."""
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(schema_of(ProblemShape), description="A problem (RFC 9457).")
        for status in statuses
    }


# --- Pages -------------------------------------------------------------------------------------------


def query_whole_number(request, name: str, *, low: int, high: int, default: int) -> int:
    """A query parameter that is a plain whole number from `low` to `high` (`default` when absent);
    anything else is `invalid_input` (never silently the default)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not re.fullmatch(r"[0-9]{1,10}", raw) or not low <= int(raw) <= high:
        raise InvalidInput(
            gettext("%(name)s is a whole number from %(low)s to %(high)s") % {"name": name, "low": low, "high": high}
        )
    return int(raw)


class Pages(LimitOffsetPagination):
    """`?limit=&offset=`, checked strictly: a limit or offset that is not a plain number in range
    is `invalid_input` (DRF would silently use the default)."""

    default_limit = 50
    max_limit = 500
    max_offset = 1_000_000_000

    def get_limit(self, request):
        return query_whole_number(
            request, self.limit_query_param, low=1, high=self.max_limit, default=self.default_limit
        )

    def get_offset(self, request):
        return query_whole_number(request, self.offset_query_param, low=0, high=self.max_offset, default=0)


PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": Pages.max_limit},
        OpenApiParameter.QUERY,
        description=f"Items per page (default {Pages.default_limit}).",
    ),
    OpenApiParameter(
        "offset",
        {"type": "integer", "minimum": 0, "maximum": Pages.max_offset},
        OpenApiParameter.QUERY,
        description="How many items to skip.",
    ),
]


def paginated(request, view, queryset, represent: Callable[[object], object], *, item: type):
    """One page of `queryset`, each item as `represent` makes it (an `item` shape), as the shape
    `page_of(item)` declares it."""
    pages = Pages()
    items = pages.paginate_queryset(queryset, request, view=view)
    return page_of(item)(
        count=pages.count,
        next=pages.get_next_link(),
        previous=pages.get_previous_link(),
        results=[represent(one) for one in items],
    )


# --- Answers ---------------------------------------------------------------------------------------------


def answer(shaped, *, status: int = 200) -> Response:
    """The response that sends a declared answer (core/shapes.py), or a list of them."""
    body = wire_list(shaped) if isinstance(shaped, list) else wire(shaped)
    return Response(body, status=status)
