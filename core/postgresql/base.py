"""Django's PostgreSQL backend, with a health check that costs no round trip.

With CONN_HEALTH_CHECKS, Django checks a persistent connection before its first statement of each
request by running `SELECT 1`. On the round path that was one round trip in five, about 6 % of
the web process's time per round and as much of PostgreSQL's (docs/BENCHMARKS.md).

A healthy connection that sits idle between requests has nothing to read. The server sends a
connection it ends (a restart, a failover, `pg_terminate_backend`) a FATAL error and closes it,
and either makes its socket readable. So this check looks at the socket without waiting. Only
when something is there does it run Django's own check, which then fails, and Django opens a new
connection before the request's first statement. Anything harmless that arrived meanwhile (a
notice, a changed server parameter) passes that check.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            waiting = select.poll()  # poll, not select: any descriptor number
            waiting.register(connection.fileno(), select.POLLIN | select.POLLPRI)
            readable = waiting.poll(0)
        except (OSError, ValueError):  # the socket is gone
            return False
        return not readable or super().is_usable()
