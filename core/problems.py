"""Render every API error as `application/problem+json` (RFC 9457)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import ServiceError

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


def problem_response(*, status_code: int, code: str, title: str, detail: str, **extra: object) -> Response:
    body = {
        "type": f"https://casino-war.example/problems/{code}",
        "title": str(title),  # lazily translated texts become the caller's language here
        "status": status_code,
        "detail": str(detail),
        "code": code,
        **extra,
    }
    return Response(body, status=status_code, content_type=PROBLEM_CONTENT_TYPE)


def problem_exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        return problem_response(status_code=exc.status, code=exc.code, title=exc.title, detail=exc.detail, **exc.extra)
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
