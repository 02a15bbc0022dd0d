"""gunicorn's threaded worker (`gthread`), with the connections spread over the worker processes.

A `gthread` process accepts every connection it can: the processes race for each new one, and a
kept-alive connection stays with the process that won it. Under 16 connections to 2 processes of
8 threads, one process was seen holding 12 and the other 4 for a whole run (docs/BENCHMARKS.md,
"Connections spread over the web processes"): four of the first process's requests always waited
for one of its threads while threads of the other idled. It costs most where a request holds its
thread longest: a seamless stake waiting on the partner's wallet.

Here a process that holds a connection for each of its threads already leaves a new connection to
its siblings for `ACCEPT_DEFER_S` (it stops polling the listening socket meanwhile): a sibling with
a free thread takes it at once. If none does (every process is full), this one takes it when the
wait is over. So connections fill the processes' threads evenly; once all are full, each process
takes one new connection per `ACCEPT_DEFER_S`, in turn (a burst of 48 connections beyond 2 x 8
threads is taken within about half a second: the 64-client benchmark's, at its start).

Every gunicorn of the service runs it: gunicorn.conf.py names it (gunicorn reads that file from the
directory it starts in). It relies on `ThreadWorker`'s loop (gunicorn 27), which stops polling the
listening socket while `nr_conns >= worker_connections`; tests/config/test_web_worker.py runs it.
"""

from __future__ import annotations

import os
import time

from gunicorn.workers.gthread import ThreadWorker

# Long enough for a sibling's loop to get the GIL and accept (Python hands the GIL over at least
# every 5 ms), short against a connection's life. The environment may set it (in milliseconds):
# tests/config/test_web_worker.py sets it long enough for a machine busy with other tests.
ACCEPT_DEFER_S = float(os.environ.get("GUNICORN_ACCEPT_DEFER_MS", "20")) / 1000


class BalancedThreadWorker(ThreadWorker):
    def __init__(self, *args, **kwargs) -> None:
        self._worker_connections = 0
        # While a new connection is left to the siblings: until when (time.monotonic()); None if not.
        self._deferred_until: float | None = None
        super().__init__(*args, **kwargs)

    def _full(self) -> bool:
        return self.nr_conns >= self.cfg.threads

    def _deferring(self) -> bool:
        return self._deferred_until is not None and time.monotonic() < self._deferred_until

    @property
    def worker_connections(self) -> int:
        # The loop accepts while nr_conns is below this: not while a connection is left to the siblings.
        if self._deferring():
            return min(self.nr_conns, self._worker_connections)
        return self._worker_connections

    @worker_connections.setter
    def worker_connections(self, value: int) -> None:
        self._worker_connections = value

    def accept(self, listener) -> None:
        if self._full():
            now = time.monotonic()
            # A deferral long over (the connection it was for went to a sibling) does not count.
            if self._deferred_until is None or now >= self._deferred_until + ACCEPT_DEFER_S:
                self._deferred_until = now + ACCEPT_DEFER_S
            if now < self._deferred_until:
                self.set_accept_enabled(False)
                return
        self._deferred_until = None
        super().accept(listener)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if self._deferring():  # poll the listening socket again when the wait is over
            timeout = min(timeout, max(self._deferred_until - time.monotonic(), 0.0))
        super().wait_for_and_dispatch_events(timeout)
