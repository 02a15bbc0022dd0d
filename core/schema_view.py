"""/api/schema/ as served (core/schema.py finishes what it says): a view apart from the schema
class, which DRF's settings import while drf-spectacular's views are still being imported."""

from __future__ import annotations

import threading

from django.conf import settings
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response

from core.throttling import AnonymousRateThrottle


class SchemaView(SpectacularAPIView):
    """/api/schema/: generated once per process and language (generating it costs some 100 ms of
    CPU, and anyone may ask for it), and throttled per address like every public endpoint."""

    throttle_classes = [AnonymousRateThrottle]
    _generated: dict[tuple[str, str | None], dict] = {}
    _lock = threading.Lock()

    def _get_schema_response(self, request):
        language = translation.get_language()
        version = self.api_version or request.version or self._get_version_parameter(request)
        if language not in dict(settings.LANGUAGES) or version is not None:
            return super()._get_schema_response(request)  # not kept: any text could name these
        key = (language, version)
        with self._lock:
            schema = self._generated.get(key)
        if schema is None:
            schema = super()._get_schema_response(request).data
            with self._lock:
                self._generated[key] = schema
        filename = self._get_filename(request, version)
        return Response(data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'})
