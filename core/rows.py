"""Model instances from one plain SQL row that spans several tables, and new ones that a database
function writes.

For the few reads on every request's path (the caller's token, user and player), building the
ORM query costs more CPU than PostgreSQL spends running it. The same converters the ORM applies
(JSON, for one) are applied here, so the instances are the ones the ORM would build. A row a
function writes (a round, a seamless debit: `row_json`) is built by `instance_new`, as
`Model(**values)` builds it, without `Model.__init__`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from django.db import connection, models
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.expressions import Col
from django.db.models.signals import post_init, pre_init


class _Layout(NamedTuple):
    """How a model's columns in a row become an instance: worked out once per model, since the
    rows of every request's reads are split with it."""

    attnames: list[str]  # every concrete field's, in field order (the row's columns)
    converters: list[tuple[int, Col, list]]  # (column index, column, converters) of the columns that have any


_layouts: dict[type[Model], _Layout] = {}


def select_list(model: type[Model], alias: str) -> str:
    """Every concrete column of `model`, in field order, qualified by `alias`."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def _layout(model: type[Model]) -> _Layout:
    layout = _layouts.get(model)
    if layout is None:
        table = model._meta.db_table
        converters = []
        for index, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(table)
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if functions:
                converters.append((index, column, functions))
        attnames = [field.attname for field in model._meta.concrete_fields]
        layout = _layouts[model] = _Layout(attnames, converters)
    return layout


def instances_from_row(row: Sequence, models: Sequence[type[Model]]) -> list[Model | None]:
    """Split `row` (built with `select_list` for each model, in order) into instances; a model
    whose columns are all NULL (an outer join that found nothing) gives None."""
    instances: list[Model | None] = []
    start = 0
    for model in models:
        attnames, converters = _layout(model)
        values = list(row[start : start + len(attnames)])
        start += len(attnames)
        if values.count(None) == len(values):
            instances.append(None)
            continue
        for index, column, functions in converters:
            for convert in functions:
                values[index] = convert(values[index], column, connection)
        instances.append(_from_db(model, attnames, values))
    return instances


def _from_db(model: type[Model], attnames: list[str], values: list) -> Model:
    """`model.from_db` with every field: the instance its `__init__` would make (each field's value
    set by its attribute name, a fresh state, loaded from this database), made without it. Its
    loop over the fields, its `setattr`s and its signals cost more than the statement that read
    the row (docs/BENCHMARKS.md). A model that overrides `__init__`, or whose instances someone
    listens for (`pre_init`, `post_init`), is made by `from_db` itself."""
    if _made_by_init(model):
        return model.from_db(connection.alias, attnames, values)
    instance = model.__new__(model)
    state = ModelState()
    state.adding, state.db = False, connection.alias
    instance.__dict__.update(zip(attnames, values, strict=True), _state=state)
    return instance


def _made_by_init(model: type[Model]) -> bool:
    """A model that overrides `__init__`, or whose instances someone listens for (`pre_init`,
    `post_init`): its instances are made by its `__init__`, whatever the path."""
    return model.__init__ is not Model.__init__ or pre_init.has_listeners(model) or post_init.has_listeners(model)


class _NewLayout(NamedTuple):
    """How keyword values become a new instance of a model, worked out once per model."""

    # (name, attname, the related object's attribute it holds (a many-to-one's) or None, get_default)
    fields: list[tuple[str, str, str | None, object]]
    names: frozenset[str]  # the names and attnames that may be given
    # A one-to-one given by name: its descriptor also caches the instance on the related object,
    # which is left to __init__.
    one_to_one: frozenset[str]


_new_layouts: dict[type[Model], _NewLayout] = {}


def _new_layout(model: type[Model]) -> _NewLayout:
    layout = _new_layouts.get(model)
    if layout is None:
        concrete = model._meta.concrete_fields
        layout = _new_layouts[model] = _NewLayout(
            [(f.name, f.attname, f.target_field.attname if f.many_to_one else None, f.get_default) for f in concrete],
            frozenset({f.name for f in concrete} | {f.attname for f in concrete}),
            frozenset(f.name for f in concrete if f.one_to_one),
        )
    return layout


def instance_new(model: type[Model], **values) -> Model:
    """`model(**values)`, a new instance (not saved), made without `Model.__init__`: its loop over
    the fields, its descriptors and its signals cost a round about as much as a statement
    (docs/BENCHMARKS.md). Every concrete field gets its value, by name (a related object, cached
    as its descriptor caches it) or by attribute name (a related object's key), or its default.
    Anything else (a model made by its `__init__`, a value that is not a concrete field's) goes
    through `model(**values)` itself."""
    layout = _new_layout(model)
    if _made_by_init(model) or not layout.names.issuperset(values) or not layout.one_to_one.isdisjoint(values):
        return model(**values)
    instance = model.__new__(model)
    state = ModelState()
    attributes = {}
    for name, attname, target, default in layout.fields:
        if target is not None and name in values:
            related = values[name]
            attributes[attname] = None if related is None else getattr(related, target)
            if related is not None:
                state.fields_cache[name] = related
        elif attname in values:
            attributes[attname] = values[attname]
        else:
            attributes[attname] = default()
    instance.__dict__.update(attributes, _state=state)
    return instance


_json_columns: dict[type[Model], list] = {}


def _as_json(field):
    if isinstance(field, models.UUIDField):
        return lambda value: None if value is None else str(value)
    if isinstance(field, models.DateTimeField | models.DateField):
        return lambda value: None if value is None else value.isoformat()
    return None  # ints, text, booleans and JSON fields are JSON as they are


def row_json(instance: Model) -> dict:
    """The instance as a row of its table in JSON, by column name: what a database function takes
    to write it in one statement (`jsonb_populate_record`); the reverse of `instances_from_row`."""
    model = type(instance)
    if model not in _json_columns:
        _json_columns[model] = [(f.column, f.attname, _as_json(f)) for f in model._meta.concrete_fields]
    row = {}
    for column, attname, convert in _json_columns[model]:
        value = getattr(instance, attname)
        row[column] = value if convert is None else convert(value)
    return row
