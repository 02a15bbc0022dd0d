from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from casino import backoffice
from casino.views import lobby
from core.health import healthz

admin.site.site_header = "Casino War back office"
admin.site.site_title = "Casino War back office"

urlpatterns = [
    path("", lobby, name="lobby"),
    path("healthz", healthz, name="healthz"),
    path("admin/reports/", backoffice.reports_index, name="reports"),
    path("admin/reports/ggr/", backoffice.ggr, name="reports-ggr"),
    path("admin/reports/rtp/", backoffice.rtp, name="reports-rtp"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
