"""System checks of the core settings (run by every management command and at start-up)."""

from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from core.client_address import trusted_proxies_parse


@register()
def check_trusted_proxies(app_configs, **kwargs):
    try:
        trusted_proxies_parse(settings.TRUSTED_PROXIES)
    except ImproperlyConfigured as exc:
        return [Error(str(exc), hint="A comma-separated list such as 10.0.0.7,10.1.0.0/16", id="core.E001")]
    return []
