"""gunicorn's configuration for `http_rounds.py --trace-tail`: production's (gunicorn.conf.py, read from
the directory gunicorn starts in), plus hooks that write each request's start (Unix time) and duration,
a line per request, to a file per worker process in TAIL_TRACE_DIR."""

import os
import time
from pathlib import Path

exec(Path("gunicorn.conf.py").read_text())  # production's settings, as they are

_TRACE_DIR = Path(os.environ["TAIL_TRACE_DIR"])


def pre_request(worker, req):
    req.trace_started = time.time()


def post_request(worker, req, environ, resp):
    with (_TRACE_DIR / f"requests.{worker.pid}").open("a") as trace:
        trace.write(f"{req.trace_started:.6f} {time.time() - req.trace_started:.6f} {req.path}\n")
