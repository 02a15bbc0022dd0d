"""The open tables, public (API.md)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from casino.selectors import table_list_open, table_representation
from casino.shapes import TableShape
from core.api import answer
from core.shapes import schema_of
from core.throttling import AnonymousRateThrottle


class TableListView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonymousRateThrottle]

    @extend_schema(responses={200: schema_of(TableShape)(many=True)}, summary="The open tables")
    def get(self, request):
        return answer([table_representation(table) for table in table_list_open()])
