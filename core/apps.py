from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class CoreConfig(AppConfig):
    default = True
    name = "core"
    verbose_name = "Audit and API plumbing"

    def ready(self):
        from core import checks  # noqa: F401  (registers the settings' checks)


class CasinoAdminConfig(admin_apps.AdminConfig):
    """The admin with the back office's own site: two-factor staff sign-in (core/admin_site.py)."""

    default = False
    default_site = "core.admin_site.CasinoAdminSite"
