"""Staff sessions end after a period without activity (players' sessions follow SESSION_COOKIE_AGE);
error pages look like the product's, even on a demo server with DEBUG on; the Content-Security-
Policy is built once; what only pages need (messages, the staff session's clock) skips the API."""

from __future__ import annotations

import logging
import time

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.messages.middleware import MessageMiddleware
from django.core import signals
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import DatabaseError
from django.http import Http404
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import redirect
from django.utils.log import log_response

from core.audit import audit_record
from core.errors import SignatureInvalid
from core.nonces import nonce_claim, nonce_of
from core.problems import not_found, server_error, service_error_response

LAST_SEEN = "staff_last_seen"
# What Django answers with a 4xx of its own (403 page, 400) rather than a 500.
CLIENT_ERRORS = (Http404, PermissionDenied, BadRequest, SuspiciousOperation, MultiPartParserError)


API_PREFIX = "/api/"


class StaffSessionTimeoutMiddleware:
    """Staff use the back office, never the API (accounts refuses them its credentials), so API
    requests, most of the traffic, do not pay for looking at the session here."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff:
            now = time.time()
            idle = now - request.session.get(LAST_SEEN, now)
            if idle > settings.STAFF_SESSION_IDLE_MINUTES * 60:
                audit_record(
                    actor_type="system",
                    actor_id="session",
                    action="staff.session_timed_out",
                    obj_type="user",
                    obj_id=user.pk,
                    idle_s=int(idle),
                )
                logout(request)
                messages.info(request, "Your back-office session ended after a period without activity.")
                return redirect(f"{settings.STAFF_LOGIN_URL}?next={request.path}")
            request.session[LAST_SEEN] = now
        return self.get_response(request)


class ProductErrorPagesMiddleware:
    """With DEBUG on (`bin/serve`'s demo server), Django answers a missing page with its debug page
    listing every URL pattern, and an error with a traceback. Here they are the product's 404 and
    500 pages (`404.html`, `500.html`; under /api/ a 500 is problem+json), as with DEBUG off; the
    traceback still goes to the log. With DEBUG off Django's own handlers already do this.

    Between the CSRF and authentication middleware: the CSRF cookie of a page rendered here is set on
    the way out, and CommonMiddleware (outside) still turns a 404 into its slash-appending redirect."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if settings.DEBUG and response.status_code == 404 and self._is_debug_page(response):
            return not_found(request)
        return response

    @staticmethod
    def _is_debug_page(response) -> bool:
        # With DEBUG on every HTML 404 is Django's debug page: no view of the service answers 404 in HTML itself.
        return response.get("Content-Type", "").startswith("text/html")

    def process_exception(self, request, exception):
        if not settings.DEBUG or isinstance(exception, CLIENT_ERRORS):
            return None  # DEBUG off: Django's handlers answer; so they do for 4xx (a 404 is replaced above)
        signals.got_request_exception.send(sender=None, request=request)
        response = server_error(request)
        log_response(
            "%s: %s", response.reason_phrase, request.path, response=response, request=request, exception=exception
        )
        return response


class PageMessageMiddleware(MessageMiddleware):
    """Django's messages, for pages: the API never shows one, so its requests skip making the store."""

    def process_request(self, request):
        if not request.path_info.startswith(API_PREFIX):
            super().process_request(request)

    def process_response(self, request, response):
        if hasattr(request, "_messages"):
            return super().process_response(request, response)
        return response


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, building each header once per policy: the service sets no policy
    per view and uses no nonces, and django-csp would build both headers from the settings again
    for every response. A response that does carry its own policy parts takes django-csp's way."""

    _built: dict[str, tuple[str, str]] = {}

    def process_response(self, request, response):
        if (
            any(getattr(response, name, None) is not None for name in _PER_RESPONSE)
            or getattr(request, "_csp_nonce", None) is not None
            or (response.status_code in (500, 404) and settings.DEBUG)
        ):
            return super().process_response(request, response)
        policies = (
            getattr(settings, "CONTENT_SECURITY_POLICY", None),
            getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None),
        )
        if any(policy and policy.get("EXCLUDE_URL_PREFIXES") for policy in policies):
            return super().process_response(request, response)
        key = repr(policies)  # a test may change the settings
        built = self._built.get(key)
        if built is None:
            built = self._built[key] = (build_policy(), build_policy(report_only=True))
        headers = ((HEADER, built[0], "_csp_exempt"), (HEADER_REPORT_ONLY, built[1], "_csp_exempt_ro"))
        for header, value, exempt in headers:
            if value and header not in response and not getattr(response, exempt, False):
                response[header] = value
        if getattr(request, "_csp_nonce", None) is None:
            request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


_PER_RESPONSE = ("_csp_config", "_csp_update", "_csp_replace", "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro")


logger = logging.getLogger(__name__)


class NonceMiddleware:
    """A signed request refused before its work recorded its nonce has it recorded as it leaves;
    if the nonce was used already, that is its answer (`signature_invalid`): it did nothing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        found = nonce_of(request)
        if found is None or found.claimed:
            return response
        try:
            nonce_claim(found)
        except SignatureInvalid as refused:
            if response.status_code >= 400:
                return service_error_response(refused)
            logger.error(
                "request with nonce %s answered %s without recording it first", found.key, response.status_code
            )
        except DatabaseError as exc:
            logger.warning("nonce %s not recorded after a refused request: %s", found.key, exc.__class__.__name__)
        return response
