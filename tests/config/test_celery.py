"""A Celery worker keeps its database connection across tasks, and drops a broken one."""

from types import SimpleNamespace

import pytest
from django.db import connection

from config.celery import app, keep_database_connections

pytestmark = pytest.mark.django_db(transaction=True)


def _worker_task():
    return SimpleNamespace(request=SimpleNamespace(is_eager=False))


def _connection_id():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0], id(connection.connection)


def test_celerys_fixup_does_not_close_the_connection_around_each_task():
    assert app.conf.get("CELERY_DB_REUSE_MAX") >= 10_000  # read by celery.fixups.django


def test_a_healthy_connection_is_kept_from_task_to_task():
    before = _connection_id()
    keep_database_connections(task=_worker_task())
    assert _connection_id() == before


def test_a_broken_connection_is_replaced_before_the_next_task():
    import psycopg
    from django.db import OperationalError

    pid, _ = _connection_id()
    settings = connection.settings_dict
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        password=settings["PASSWORD"] or None,
        autocommit=True,
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])  # the server drops it (a restart)
    with pytest.raises(OperationalError):
        _connection_id()  # the task that meets the dead connection fails (and is retried)
    keep_database_connections(task=_worker_task())
    assert _connection_id()[0] != pid  # the next task gets a new connection
