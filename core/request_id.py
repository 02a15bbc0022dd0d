"""A request id on every request: taken from a sane incoming `X-Request-ID` (a load balancer's or
a client's) or made here, echoed in the response, put into every log record written while the
request is served and into problem bodies, so a 5xx a client reports can be found in the logs.
A replayed idempotent answer (core/idempotency.py) is the first answer's bytes and headers, its
`X-Request-ID` included; the replaying request's own id is then in `X-Replay-Request-ID`."""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar

HEADER = "X-Request-ID"
REPLAY_HEADER = "X-Replay-Request-ID"  # on a replayed answer: the id of the request that got the replay
REPLAYED_HEADER = "Idempotent-Replayed"
_META_KEY = "HTTP_X_REQUEST_ID"
_SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_current: ContextVar[str | None] = ContextVar("request_id", default=None)


def current_request_id() -> str | None:
    return _current.get()


def _request_id_for(request) -> str:
    offered = request.META.get(_META_KEY, "")
    return offered if _SANE.fullmatch(offered) else uuid.uuid4().hex


class RequestIdMiddleware:
    """First in MIDDLEWARE, so that everything after it (errors, their log lines) has the id."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = _request_id_for(request)
        request.request_id = request_id
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        if response.get(REPLAYED_HEADER) == "true" and response.has_header(HEADER):
            # A replayed answer keeps the first request's id (its body names it too); this one's is beside it.
            response[REPLAY_HEADER] = request_id
        else:
            response[HEADER] = request_id
        return response


class RequestIdFilter(logging.Filter):
    """Gives every record a `request_id` (`-` outside a request) for the log format."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = _current.get() or "-"
        return True
