"""The test database as a DATABASE_URL, for the processes a test starts (a Celery worker,
gunicorn, `manage.py`)."""

from __future__ import annotations

from urllib.parse import quote


def database_url(db: dict) -> str:
    """`connection.settings_dict` as a URL. HOST may be a socket directory (the embedded server's
    under var/postgres): quoted, as dj-database-url reads it back."""
    host = quote(db["HOST"] or "127.0.0.1", safe="")
    return f"postgres://{db['USER']}@{host}:{db['PORT'] or 5432}/{db['NAME']}"
