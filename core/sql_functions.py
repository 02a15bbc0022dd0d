"""The database functions of the schema, each in one file: `<app>/sql/<function>.sql` holds the
CREATE OR REPLACE FUNCTION statement of the function as it runs now (django-hordak keeps its SQL
the same way). Migrations load these files through the operations below and never carry a body:

* `function_create(app, name)`: a new function, from its file; reversed, it is dropped.
* `function_reload(app, name)`: a function whose file changed, loaded again; reversed, the body
  stays as it is (the earlier body is in the repository's history, not in a migration), unless the
  migration gives `reverse_sql` (the statement that puts back what the earlier body needs).
* `function_drop(name, arguments)`: a function that goes, with its file; reversed, nothing comes
  back (its file is gone; a migration that may be reversed drops only a function nothing needs).

A file is loaded with `check_function_bodies` off, as pg_dump loads functions: a body that reads a
table or column made by a later migration loads (a fresh database runs every file's current body
from the migration that first made the function). `tests/core/test_sql_functions.py` holds every
function of a migrated database equal to its file, and every file to a function.
"""

from __future__ import annotations

from pathlib import Path

from django.apps import apps as global_apps
from django.db import migrations

FUNCTIONS_DIRECTORY = "sql"


def function_file(app_label: str, name: str) -> Path:
    """The file of the function `name`, which the app `app_label` owns."""
    return Path(global_apps.get_app_config(app_label).path) / FUNCTIONS_DIRECTORY / f"{name}.sql"


def function_sql(app_label: str, name: str) -> str:
    return function_file(app_label, name).read_text(encoding="utf-8")


def function_files() -> dict[str, Path]:
    """Every function file of the project's apps, by function name."""
    found: dict[str, Path] = {}
    for config in global_apps.get_app_configs():
        directory = Path(config.path) / FUNCTIONS_DIRECTORY
        if directory.is_dir() and not config.name.startswith("django."):
            found.update({path.stem: path for path in sorted(directory.glob("*.sql"))})
    return found


def function_load(cursor, sql: str) -> None:
    """Run a function's CREATE OR REPLACE statement with its body unchecked against the tables (as
    pg_dump loads functions), then put `check_function_bodies` back as it was."""
    cursor.execute("SELECT current_setting('check_function_bodies')")
    (checked,) = cursor.fetchone()
    cursor.execute("SELECT set_config('check_function_bodies', 'off', false)")
    cursor.execute(sql)
    cursor.execute("SELECT set_config('check_function_bodies', %s, false)", [checked])


def _dropped(name: str) -> str:
    """A statement that drops every function called `name` in the schema (whatever its arguments)."""
    return (
        "DO $$ DECLARE f regprocedure; BEGIN"
        " FOR f IN SELECT p.oid::regprocedure FROM pg_proc p"
        f" WHERE p.proname = '{name}' AND p.pronamespace = current_schema()::regnamespace"
        " LOOP EXECUTE 'DROP FUNCTION ' || f; END LOOP; END $$"
    )


def _loaded(app_label: str, name: str):
    def load(apps, schema_editor):
        with schema_editor.connection.cursor() as cursor:
            function_load(cursor, function_sql(app_label, name))

    return load


def function_create(app_label: str, name: str) -> migrations.RunPython:
    """Create the function `name` from its file; reversed, drop it."""

    def drop(apps, schema_editor):
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(_dropped(name))

    return migrations.RunPython(_loaded(app_label, name), drop, elidable=False)


def function_reload(app_label: str, name: str, *, reverse_sql: str | None = None) -> migrations.RunPython:
    """Load the function `name` again from its changed file; reversed, run `reverse_sql` if given
    (else the current body stays)."""

    def reverse(apps, schema_editor):
        if reverse_sql:
            with schema_editor.connection.cursor() as cursor:
                function_load(cursor, reverse_sql)

    return migrations.RunPython(_loaded(app_label, name), reverse, elidable=False)


def function_drop(name: str, arguments: str) -> migrations.RunSQL:
    """Drop the function `name(arguments)` if it exists (a database made fresh never had it)."""
    return migrations.RunSQL(f"DROP FUNCTION IF EXISTS {name}({arguments})", migrations.RunSQL.noop)
