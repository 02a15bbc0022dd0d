"""The test database as a DATABASE_URL, for the processes a test starts (a Celery worker,
gunicorn, `manage.py`)."""

from __future__ import annotations

from urllib.parse import quote

import psycopg
from django.db import connection


def database_url(db: dict) -> str:
    """`connection.settings_dict` as a URL. HOST may be a socket directory (the embedded server's
    under var/postgres): quoted, as dj-database-url reads it back."""
    host = quote(db["HOST"] or "127.0.0.1", safe="")
    return f"postgres://{db['USER']}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


def other_connection(*, autocommit: bool = True):
    """A connection of its own to the test database, beside Django's (another request's, say)."""
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"],
        dbname=db["NAME"],
        autocommit=autocommit,
    )


def advisory_locks_held() -> int:
    """The advisory locks Django's connection holds now (an Idempotency-Key's, core/idempotency.py)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")
        return cursor.fetchone()[0]
