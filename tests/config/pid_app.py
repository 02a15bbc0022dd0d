"""A WSGI app for tests/config/test_web_worker.py: answers the id of the process that served the
request, after `?sleep=<seconds>` if asked (holding its thread, as a request waiting on a partner's
wallet holds one)."""

import os
import time
from urllib.parse import parse_qs


def app(environ, start_response):
    sleep = parse_qs(environ.get("QUERY_STRING", "")).get("sleep")
    if sleep:
        time.sleep(float(sleep[0]))
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
