"""Staff sessions end after a period without activity (players' sessions follow SESSION_COOKIE_AGE)."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.shortcuts import redirect

from core.audit import audit_record

LAST_SEEN = "staff_last_seen"


class StaffSessionTimeoutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff:
            now = time.time()
            idle = now - request.session.get(LAST_SEEN, now)
            if idle > settings.STAFF_SESSION_IDLE_MINUTES * 60:
                audit_record(actor_type="system", actor_id="session", action="staff.session_timed_out",
                             obj_type="user", obj_id=user.pk, idle_s=int(idle))  # fmt: skip
                logout(request)
                messages.info(request, "Your back-office session ended after a period without activity.")
                return redirect(f"{settings.STAFF_LOGIN_URL}?next={request.path}")
            request.session[LAST_SEEN] = now
        return self.get_response(request)
