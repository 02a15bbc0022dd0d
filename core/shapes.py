"""The declared shapes of the API's answers: one frozen dataclass per answer, which builds both the
wire answer and its schema, so the two cannot part.

    @shape
    class WalletShape:
        currency: str
        balance: int = shape_field("What the player can bet now, in minor units.")

A selector or a view makes the answer as a `WalletShape(...)` (a field missing or one it does not
declare is a TypeError at once); `wire(answer)` is the JSON-ready dict that is sent, and stored
for an idempotent request's replays (core/idempotency.py renders exactly it); `schema_of(WalletShape)`
is the DRF serializer drf-spectacular reads for /api/schema/ (its component is `Wallet`: the class
name without `Shape`). A serializer is never run on an answer: DRF's take some 100 us for a round,
a plan of plain attribute reads a few.

The Python types say the JSON: `str`, `int`, `float`, `bool`, `dict`, `datetime` (an RFC 3339
string, core/times.py), a `Literal[...]` or an enumeration (one of its values), another shape (an
object), `list[...]`, and `X | None` (nullable). A field whose default is `ABSENT` may be left out
of the answer (the schema does not require it); `shape_field(name=...)` sends a field under another
name (`raise`, a Python keyword).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable
from datetime import datetime

from rest_framework import serializers

from core.times import rfc3339


class _Absent:
    """A field left out of the answer (`ABSENT`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: typing.Any = _Absent()
SUFFIX = "Shape"


def shape(cls: type) -> type:
    """A declared answer: a frozen dataclass, built by keyword."""
    cls.__shape_doc__ = cls.__dict__.get("__doc__")  # the schema's description: the class's own docstring
    return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)


def shape_field(
    help_text: str = "",
    *,
    name: str | None = None,
    url: bool = False,
    default: object = dataclasses.MISSING,
    **bounds: int,
) -> typing.Any:
    """A field with its description in the schema (`help_text`), sent as `name` (default: the
    attribute's), a URL (`url`: `format: uri` in the schema), one that may be left out
    (`default=ABSENT`), or a number the schema bounds (`min_value`, `max_value`)."""
    metadata = {"help_text": help_text, "name": name, "url": url, "bounds": bounds}
    return dataclasses.field(default=default, metadata=metadata)


def is_shape(value: object) -> bool:
    return dataclasses.is_dataclass(value) and hasattr(value, "__shape_doc__")


# --- The wire answer -----------------------------------------------------------------------------------


def _nullable(kind) -> tuple[object, bool]:
    """(the type, whether None is allowed) of `X | None`."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        if len(options) != 1:
            raise TypeError(f"a shape's field is one type or that type or None, not {kind}")
        return options[0], len(options) != len(typing.get_args(kind))
    return kind, False


def _converter(kind) -> Callable | None:
    """What makes a field's value JSON-ready, or None where the value already is."""
    kind, _ = _nullable(kind)
    if kind is datetime:
        return rfc3339
    if isinstance(kind, type) and is_shape(kind):
        return wire
    if typing.get_origin(kind) is list:
        item = _converter(typing.get_args(kind)[0])
        if item is not None:
            return lambda values: [None if value is None else item(value) for value in values]
    return None


@functools.cache
def _plan(cls: type) -> tuple[tuple[str, str, Callable | None, bool], ...]:
    """(attribute, name on the wire, converter, whether it may be left out) of each field, in order."""
    if not is_shape(cls):
        raise TypeError(f"an answer is a declared shape (core.shapes.shape), not a {cls.__name__}")
    hints = typing.get_type_hints(cls)
    return tuple(
        (field.name, field.metadata.get("name") or field.name, _converter(hints[field.name]), field.default is ABSENT)
        for field in dataclasses.fields(cls)
    )


@functools.cache
def _renderer(cls: type) -> Callable[[object], dict]:
    """The function that makes a `cls` answer's wire form: one dict display of its fields, written
    once per shape (as dataclasses writes `__init__`), a few microseconds for a round."""
    converters: dict[str, object] = {"ABSENT": ABSENT}
    items = []
    for number, (attribute, name, convert, _) in enumerate(_plan(cls)):
        value = f"answer.{attribute}"
        if convert is not None:
            converters[f"convert{number}"] = convert
            value = f"(None if {value} is None else convert{number}({value}))"
        items.append(f"{name!r}: {value}")
    lines = ["def render(answer):", f"    body = {{{', '.join(items)}}}"]
    may_be_left_out = tuple(name for _, name, _, optional in _plan(cls) if optional)
    if may_be_left_out:
        lines += [
            f"    for name in {may_be_left_out!r}:",
            "        if body[name] is ABSENT:",
            "            del body[name]",
        ]
    exec("\n".join([*lines, "    return body"]), converters)  # the source: the declaration's names only
    return converters["render"]


def wire(answer) -> dict:
    """The answer as it is sent: its fields under their names, JSON-ready; `ABSENT` ones left out."""
    return _renderer(type(answer))(answer)


def wire_list(answers) -> list[dict]:
    return [wire(answer) for answer in answers]


# --- The schema ------------------------------------------------------------------------------------------


def component_name(cls: type) -> str:
    return cls.__name__.removesuffix(SUFFIX)


def _schema_field(kind, **options) -> serializers.Field:
    kind, nullable = _nullable(kind)
    if nullable:
        options["allow_null"] = True
    url = options.pop("url", False)
    origin = typing.get_origin(kind)
    if isinstance(kind, type) and is_shape(kind):
        return schema_of(kind)(**options)
    if origin is list:
        (item,) = typing.get_args(kind)
        if isinstance(item, type) and is_shape(item):
            return schema_of(item)(many=True, **options)
        return serializers.ListField(child=_schema_field(item), **options)
    if origin is typing.Literal:
        return serializers.ChoiceField(choices=list(typing.get_args(kind)), **options)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        choices = getattr(kind, "choices", None) or [member.value for member in kind]
        return serializers.ChoiceField(choices=choices, **options)
    simple = {
        bool: serializers.BooleanField,
        int: serializers.IntegerField,
        float: serializers.FloatField,
        datetime: serializers.DateTimeField,
        dict: serializers.DictField,
        str: serializers.URLField if url else serializers.CharField,
    }
    base = origin or kind
    if base not in simple:
        raise TypeError(f"a shape's field cannot be {kind!r}")
    return simple[base](**options)


@functools.cache
def schema_of(cls: type) -> type[serializers.Serializer]:
    """The serializer drf-spectacular reads for the shape (never run on an answer)."""
    hints = typing.get_type_hints(cls)
    attributes: dict[str, object] = {"__module__": cls.__module__, "__doc__": cls.__shape_doc__}
    if getattr(cls, "is_page", False):
        attributes["is_page"] = True  # core.schema names its GET a list
    for field in dataclasses.fields(cls):
        options: dict[str, object] = {}
        if field.metadata.get("help_text"):
            options["help_text"] = field.metadata["help_text"]
        if field.metadata.get("url"):
            options["url"] = True
        if field.default is ABSENT:
            options["required"] = False
        options.update(field.metadata.get("bounds", {}))
        attributes[field.metadata.get("name") or field.name] = _schema_field(hints[field.name], **options)
    return type(f"{component_name(cls)}Serializer", (serializers.Serializer,), attributes)


# --- Pages -------------------------------------------------------------------------------------------------


@functools.cache
def page_of(item: type) -> type:
    """The shape of a page of `item`s (core.api.Pages)."""
    name = component_name(item)
    page = dataclasses.make_dataclass(
        f"{name}Page{SUFFIX}",
        [
            ("count", int, shape_field("How many items there are in all.")),
            ("next", str | None, shape_field("The next page, if any.", url=True)),
            ("previous", str | None, shape_field("The previous page, if any.", url=True)),
            ("results", list[item]),
        ],
        namespace={"__doc__": f"A page of {name} items, newest first.", "is_page": True},
        frozen=True,
        slots=True,
        kw_only=True,
    )
    page.__module__, page.__shape_doc__ = item.__module__, page.__doc__
    return page
