from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from casino import backoffice
from core.health import healthz

urlpatterns = [
    path("", include("web.urls")),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["web"]), name="javascript-catalog"),
    path("healthz", healthz, name="healthz"),
    path("admin/reports/", backoffice.reports_index, name="reports"),
    path("admin/reports/ggr/", backoffice.ggr, name="reports-ggr"),
    path("admin/reports/rtp/", backoffice.rtp, name="reports-rtp"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI with its start-up script as a file of its own (`?script`), not inline: the CSP allows none.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
]
