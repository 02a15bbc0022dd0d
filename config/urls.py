from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularSwaggerSplitView

from casino import backoffice
from core import health
from core.schema_view import SchemaView

# The API first: URL resolution walks the patterns in order, and API calls are most of the traffic.
urlpatterns = [
    path("api/v1/", include("config.api_urls")),
    path("", include("web.urls")),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["web"]), name="javascript-catalog"),
    path("healthz", health.ready, name="healthz"),  # readiness, as the image's health check expects
    path("healthz/ready", health.ready, name="healthz-ready"),
    path("healthz/live", health.live, name="healthz-live"),
    path("admin/", backoffice.dashboard, name="dashboard"),  # the admin's index: the operators' overview
    path("admin/reports/", backoffice.reports_index, name="reports"),
    path("admin/reports/ggr/", backoffice.ggr, name="reports-ggr"),
    path("admin/reports/rtp/", backoffice.rtp, name="reports-rtp"),
    path("admin/reconciliation/", backoffice.wallet_reconciliation, name="wallet-reconciliation"),
    path("admin/", admin.site.urls),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # Swagger UI with its start-up script as a file of its own (`?script`), not inline: the CSP allows none.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
]

handler404 = "core.problems.not_found"
handler500 = "core.problems.server_error"
