"""Model instances from one plain SQL row that spans several tables.

For the few reads on every request's path (the caller's token, user and player), building the
ORM query costs more CPU than PostgreSQL spends running it. The same converters the ORM applies
(JSON, for one) are applied here, so the instances are the ones the ORM would build.
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
    if model.__init__ is not Model.__init__ or pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(connection.alias, attnames, values)
    instance = model.__new__(model)
    state = ModelState()
    state.adding, state.db = False, connection.alias
    instance.__dict__.update(zip(attnames, values, strict=True), _state=state)
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
