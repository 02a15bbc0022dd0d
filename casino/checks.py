"""Deployment checks (`manage.py check --deploy`): a secret key that anyone can read in this
repository, or a login with the demo password, has no place in production."""

from __future__ import annotations

import os

from django.conf import settings
from django.contrib.auth.hashers import check_password
from django.core.checks import Error, Tags, register
from django.db import DatabaseError
from django.db.models import Q

from accounts.models import User

PUBLIC_DEMO_PASSWORD = "casino-war-demo"  # README prints it: every demo login's password
DEMO_USERNAMES = ("demo", "operator", "auditor", "admin")
# Keys published in this repository: the development key, the old compose fallback, the image's
# build-time key and the test suite's. Their prefixes catch the variants (bin/test's has a suffix).
PUBLISHED_KEY_PREFIXES = (
    "dev-insecure-key-only-for-local-debug-use",
    "change-me-in-production",
    "build-only",
    "test-only-secret-key",
)


def secret_key_is_published(key: str) -> bool:
    return key == settings.DEVELOPMENT_SECRET_KEY or key.startswith(PUBLISHED_KEY_PREFIXES)


@register(Tags.security, deploy=True)
def check_secret_key_not_published(app_configs, **kwargs):
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    if any(secret_key_is_published(key) for key in keys):
        return [
            Error(
                "SECRET_KEY (or one of SECRET_KEY_FALLBACKS) is a key published in this repository: "
                "anyone could sign sessions and password-reset links.",
                hint='Set SECRET_KEY to a long random value: python3 -c "import secrets; '
                'print(secrets.token_urlsafe(50))"',
                id="casino.E001",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def check_no_demo_password(app_configs, **kwargs):
    """Staff and the demo logins must not sign in with the demo password (demo_data sets it),
    unless the server says it is a demo (DEMO_DATA)."""
    if settings.DEMO_DATA:
        return []
    passwords = {PUBLIC_DEMO_PASSWORD, os.environ.get("DEMO_PASSWORD") or PUBLIC_DEMO_PASSWORD}
    try:
        users = list(User.objects.filter(Q(is_staff=True) | Q(username__in=DEMO_USERNAMES), is_active=True))
    except DatabaseError:  # no database (yet): no login to check
        return []
    demo = sorted(user.username for user in users if any(check_password(p, user.password) for p in passwords))
    if demo:
        return [
            Error(
                f"These logins use the demo password: {', '.join(demo)}.",
                hint="Change their passwords (manage.py changepassword NAME) or deactivate them; load demo data "
                "(DEMO_DATA=true, manage.py demo_data) only on a demo server.",
                id="casino.E002",
            )
        ]
    return []
