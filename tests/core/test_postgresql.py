"""core/postgresql: the health check that looks at the socket instead of running `SELECT 1`."""

from __future__ import annotations

import time

import pytest
from django.db import connection, connections

from core.postgresql.base import DatabaseWrapper
from tests.databases import other_connection

pytestmark = pytest.mark.django_db(transaction=True)


def _terminate(backend_pid: int) -> None:
    with other_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend_pid])


def test_the_project_runs_this_backend():
    assert isinstance(connections["default"], DatabaseWrapper)


def test_an_idle_healthy_connection_is_usable_without_a_statement(monkeypatch):
    connection.ensure_connection()
    ran = []
    monkeypatch.setattr("django.db.backends.postgresql.base.DatabaseWrapper.is_usable", lambda self: ran.append(1))
    assert connection.is_usable() is True
    assert ran == []  # no round trip


def test_a_terminated_connection_is_unusable_and_replaced_before_the_next_statement():
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    _terminate(pid)
    for _ in range(50):  # the server's goodbye reaches the socket
        if not connection.is_usable():
            break
        time.sleep(0.02)
    assert connection.is_usable() is False
    connection.health_check_enabled, connection.health_check_done = True, False
    connection.close_if_health_check_failed()
    with connection.cursor() as cursor:  # a new connection, no error
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_something_harmless_waiting_on_the_socket_falls_back_to_the_round_trip(monkeypatch):
    connection.ensure_connection()
    with connection.connection.cursor() as cursor:
        cursor.execute("LISTEN core_postgresql_test")
    connection.connection.commit()
    with other_connection() as other:
        other.execute("NOTIFY core_postgresql_test")
    ran = []
    original = DatabaseWrapper.__mro__[1].is_usable
    monkeypatch.setattr(
        "django.db.backends.postgresql.base.DatabaseWrapper.is_usable", lambda self: ran.append(1) or original(self)
    )
    # another session's notification waits on the socket: readable, and the connection is fine
    for _ in range(50):
        ran.clear()
        if connection.is_usable() and ran:
            break
        time.sleep(0.02)
    assert ran == [1]
    with connection.connection.cursor() as cursor:
        cursor.execute("UNLISTEN *")
    connection.connection.commit()


def test_a_closed_connection_is_unusable():
    connection.ensure_connection()
    connection.connection.close()
    assert connection.is_usable() is False
    connection.close()
