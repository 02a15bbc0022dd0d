"""The database functions of the migrated test database are their files (<app>/sql/<function>.sql,
core/sql_functions.py): every function has a file, every file a function, and each function's
definition is what its file makes (loaded again inside the test's transaction, then rolled back)."""

import re

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.state import ProjectState

from core.sql_functions import function_create, function_drop, function_files, function_load, function_sql

pytestmark = pytest.mark.django_db

# The functions of the schema the migrations made (those of an extension are the extension's).
DEFINITIONS = """
SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid)
  FROM pg_proc p
 WHERE p.pronamespace = current_schema()::regnamespace
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
"""


def _definitions() -> dict[str, str]:
    """Each function's definition by its signature, its whitespace normalised."""
    with connection.cursor() as cursor:
        cursor.execute(DEFINITIONS)
        return {signature: re.sub(r"\s+", " ", definition).strip() for signature, definition in cursor.fetchall()}


def _name(signature: str) -> str:
    return signature.split("(", 1)[0]


def test_every_function_has_its_file_and_every_file_its_function():
    names = sorted(_name(signature) for signature in _definitions())
    assert names == sorted(function_files()), "a function without its file, or a file without its function"
    assert len(names) == len(set(names)), "one file holds one function: no name with two argument lists"


def test_every_function_is_what_its_file_makes():
    migrated = _definitions()
    with transaction.atomic(), connection.cursor() as cursor:
        for path in function_files().values():
            function_load(cursor, path.read_text(encoding="utf-8"))
        loaded = _definitions()
        transaction.set_rollback(True)
    assert loaded.keys() == migrated.keys(), "a file makes a function with other arguments than the schema's"
    changed = sorted(signature for signature in migrated if loaded[signature] != migrated[signature])
    assert changed == [], "these functions' bodies differ from their files (a migration must load the file)"


def test_a_body_other_than_its_file_is_found():
    """The comparison above can fail: a function whose body differs from its file by one word."""
    sql = function_sql("core", "core_audit_record")
    with transaction.atomic(), connection.cursor() as cursor:
        function_load(cursor, sql.replace("left(p_actor_id, 64)", "left(p_actor_id, 63)"))
        edited = _definitions()
        function_load(cursor, sql)
        assert _definitions() != edited
        transaction.set_rollback(True)


def test_a_file_is_loaded_unchecked_against_the_tables_and_the_setting_put_back():
    """A body may read a table a later migration makes (a fresh database loads every file's current
    body where the function first came); `check_function_bodies` is as it was afterwards."""
    sql = (
        "CREATE OR REPLACE FUNCTION core_test_unchecked() RETURNS bigint LANGUAGE sql AS $$"
        " SELECT count(*) FROM a_table_not_made_yet $$"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        function_load(cursor, sql)
        cursor.execute("SHOW check_function_bodies")
        assert cursor.fetchone() == ("on",)
        with pytest.raises(DatabaseError), transaction.atomic():
            cursor.execute(sql.replace("core_test_unchecked", "core_test_checked"))
        transaction.set_rollback(True)


def test_the_migration_operations_create_and_drop_a_function_from_its_file():
    """`function_create` loads the file forward and drops the function backward (every argument list
    of its name); `function_drop` drops one that is there, and passes over one that is not."""

    def exists() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_proc WHERE proname = 'ledger_house_shard'")
            return cursor.fetchone()[0] == 1

    created = function_create("ledger", "ledger_house_shard")
    state = ProjectState()
    with transaction.atomic(), connection.schema_editor(atomic=False) as editor:
        created.database_backwards("ledger", editor, state, state)
        assert not exists()
        created.database_forwards("ledger", editor, state, state)
        assert exists()
        function_drop("ledger_house_shard", "text").database_forwards("ledger", editor, state, state)
        assert not exists()
        function_drop("ledger_house_shard", "text").database_forwards("ledger", editor, state, state)
        transaction.set_rollback(True)
    assert exists()
