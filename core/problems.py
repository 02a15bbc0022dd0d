"""Render every API error as `application/problem+json` (RFC 9457), server errors included.

Refusals (4xx) come from the service's error hierarchy and DRF. A database that cannot be reached
or dropped the connection (a restart, a terminated backend, a failover), or that undid the
request's transaction for another one again and again (a deadlock), is a `503
service_unavailable` with `Retry-After`, its detail saying which: the request changed nothing
that was not rolled back, and the same Idempotency-Key may be retried. Anything else unexpected
is a `500 server_error` (`server_error`, Django's handler500). Every problem carries the request
id, which is also in the log line of the error (`core/request_id.py`).
"""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponseServerError, JsonResponse
from django.template import TemplateDoesNotExist, loader
from django.utils.translation import gettext
from django.views.defaults import page_not_found
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from core.errors import ServiceError
from core.request_id import current_request_id
from core.shapes import ABSENT, shape, shape_field, wire
from core.transactions import CONFLICT_ATTEMPTS, transaction_conflict

logger = logging.getLogger(__name__)
# Errors of the connection to the database rather than of the statement: retrying can succeed.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
RETRY_AFTER_S = "1"

PROBLEM_CONTENT_TYPE = "application/problem+json"

_DRF_CODES = {
    status.HTTP_400_BAD_REQUEST: "invalid_input",
    status.HTTP_401_UNAUTHORIZED: "not_authenticated",
    status.HTTP_403_FORBIDDEN: "permission_denied",
    status.HTTP_404_NOT_FOUND: "not_found",
    status.HTTP_405_METHOD_NOT_ALLOWED: "method_not_allowed",
    status.HTTP_406_NOT_ACCEPTABLE: "not_acceptable",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
    status.HTTP_429_TOO_MANY_REQUESTS: "throttled",
}


@shape
class ProblemShape:
    type: str
    title: str
    status: int
    detail: str
    code: str = shape_field("Machine code, e.g. insufficient_funds; never changes.")
    errors: dict = shape_field("Invalid input: the messages of each field.", default=ABSENT)
    request_id: str = shape_field("The response's X-Request-ID, also in the server's log lines.")


def _problem(*, status_code: int, code: str, title: str, detail: str, **extra: object) -> dict:
    """A problem's body, as `ProblemShape` declares it (`extra`: its optional fields)."""
    return wire(
        ProblemShape(
            type=f"https://casino-war.example/problems/{code}",
            title=str(title),  # lazily translated texts become the caller's language here
            status=status_code,
            detail=str(detail),
            code=code,
            request_id=current_request_id() or "",  # every request has one (core/request_id.py)
            **extra,
        )
    )


def problem_response(*, status_code: int, code: str, title: str, detail: str, **extra: object) -> Response:
    body = _problem(status_code=status_code, code=code, title=title, detail=detail, **extra)
    return Response(body, status=status_code, content_type=PROBLEM_CONTENT_TYPE)


def service_error_response(exc: ServiceError) -> JsonResponse:
    """A refusal answered outside DRF (by a middleware), as `problem_exception_handler` answers it."""
    body = _problem(status_code=exc.status, code=exc.code, title=exc.title, detail=exc.detail, **exc.extra)
    response = JsonResponse(body, status=exc.status, content_type=PROBLEM_CONTENT_TYPE)
    if exc.retry_after_s is not None:
        response["Retry-After"] = str(exc.retry_after_s)
    return response


def _unavailable_body(exc: BaseException | None = None) -> dict:
    """A database that did not answer, or (`exc` says so) one that undid this request's transaction
    because of another one, after the service had run it again a few times (core/transactions.py)."""
    if exc is not None and transaction_conflict(exc) is not None:
        return _problem(
            status_code=503,
            code="service_unavailable",
            title=gettext("The service is briefly busy."),
            detail=gettext(
                "The database undid this request %(attempts)s times because another one was changing the same "
                "money at the same moment. Nothing was changed; retry with the same Idempotency-Key."
            )
            % {"attempts": CONFLICT_ATTEMPTS},
        )
    return _problem(
        status_code=503,
        code="service_unavailable",
        title=gettext("The service is briefly unavailable."),
        detail=gettext("The database did not answer. Nothing was changed; retry with the same Idempotency-Key."),
    )


def _server_error_body() -> dict:
    return _problem(
        status_code=500,
        code="server_error",
        title=gettext("The server failed to answer this request."),
        detail=gettext("Quote the request id when you report this."),
    )


def problem_exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        response = problem_response(
            status_code=exc.status, code=exc.code, title=exc.title, detail=exc.detail, **exc.extra
        )
        if exc.retry_after_s is not None:
            response["Retry-After"] = str(exc.retry_after_s)
        return response
    if isinstance(exc, DATABASE_UNAVAILABLE):
        set_rollback()
        logger.error(
            "database unavailable: %s (%s)",
            exc.__class__.__name__,
            transaction_conflict(exc) or "no answer",
            exc_info=exc,
        )
        response = Response(_unavailable_body(exc), status=503, content_type=PROBLEM_CONTENT_TYPE)
        response["Retry-After"] = RETRY_AFTER_S
        return response
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = exception_handler(exc, context)
    if response is None:
        return None
    code = _DRF_CODES.get(response.status_code, "error")
    extra: dict[str, object] = {}
    if isinstance(exc, exceptions.ValidationError):
        extra["errors"] = response.data
        detail = gettext("Some fields are invalid.")
    else:
        detail = str(getattr(exc, "detail", "")) or code
    problem = problem_response(
        status_code=response.status_code,
        code=code,
        title=detail if not extra else gettext("Invalid input."),
        detail=detail,
        **extra,
    )
    for header in ("WWW-Authenticate", "Retry-After", "Allow"):
        if header in response:
            problem[header] = response[header]
    return problem


def not_found(request, exception=None):
    """Django's handler404 (and, with DEBUG on, core.middleware's): under /api/ a `not_found`
    problem, as every other API error; pages get the product's 404 page."""
    if request.path.startswith("/api/"):
        body = _problem(
            status_code=404,
            code="not_found",
            title=gettext("Not found."),
            detail=gettext("There is no API endpoint at %(path)s.") % {"path": request.path},
        )
        return JsonResponse(body, status=404, content_type=PROBLEM_CONTENT_TYPE)
    return page_not_found(request, exception if exception is not None else Http404())


def server_error(request):
    """Django's handler500, for whatever no view handled (it has been logged with the request id).

    Under /api/ the answer is problem+json; pages get the product's 500 page (`500.html`, with
    `request_id` in its context), rendered without the request so that it needs no database."""
    exc = sys.exc_info()[1]
    unavailable = isinstance(exc, DATABASE_UNAVAILABLE)
    if request.path.startswith("/api/"):
        response = JsonResponse(
            _unavailable_body(exc) if unavailable else _server_error_body(),
            status=503 if unavailable else 500,
            content_type=PROBLEM_CONTENT_TYPE,
        )
        if unavailable:
            response["Retry-After"] = RETRY_AFTER_S
        return response
    request_id = current_request_id() or getattr(request, "request_id", "")
    try:
        template = loader.get_template("500.html")
    except TemplateDoesNotExist:
        return HttpResponseServerError(
            f"<h1>Server Error (500)</h1><p>Request id: {request_id}</p>", content_type="text/html"
        )
    return HttpResponseServerError(template.render({"request_id": request_id}))
