"""Model instances from one plain SQL row that spans several tables.

For the few reads on every request's path (the caller's token, user and player), building the
ORM query costs more CPU than PostgreSQL spends running it. The same converters the ORM applies
(JSON, for one) are applied here, so the instances are the ones the ORM would build.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, models
from django.db.models import Model

_converters: dict[type[Model], list] = {}


def select_list(model: type[Model], alias: str) -> str:
    """Every concrete column of `model`, in field order, qualified by `alias`."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def _field_converters(model: type[Model]) -> list:
    if model not in _converters:
        table = model._meta.db_table
        per_field = []
        for field in model._meta.concrete_fields:
            column = field.get_col(table)
            functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            per_field.append((column, functions))
        _converters[model] = per_field
    return _converters[model]


def instances_from_row(row: Sequence, models: Sequence[type[Model]]) -> list[Model | None]:
    """Split `row` (built with `select_list` for each model, in order) into instances; a model
    whose columns are all NULL (an outer join that found nothing) gives None."""
    instances: list[Model | None] = []
    start = 0
    for model in models:
        fields = model._meta.concrete_fields
        values = list(row[start : start + len(fields)])
        start += len(fields)
        if all(value is None for value in values):
            instances.append(None)
            continue
        for index, (column, functions) in enumerate(_field_converters(model)):
            for convert in functions:
                values[index] = convert(values[index], column, connection)
        instances.append(model.from_db(connection.alias, [field.attname for field in fields], values))
    return instances


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
