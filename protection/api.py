"""Player protection's HTTP surface (API.md): limits, time-outs and self-exclusions, reality
checks. Player endpoints: the player and who acts come from the scope they are mounted with
(`accounts.api`), as `request.player` and `request.actor`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from core.api import answer, problems, validated
from core.shapes import schema_of
from protection.selectors import protection_summary, session_figures
from protection.serializers import ExclusionStartSerializer, LimitSetSerializer, RealityCheckSerializer
from protection.services import exclusion_start, limit_set, reality_check_set
from protection.shapes import ExclusionShape, ProtectionShape, SessionFiguresShape


class ProtectionView(APIView):
    @extend_schema(
        responses={200: schema_of(ProtectionShape), **problems(401, 403, 404)}, summary="Limits, exclusion, session"
    )
    def get(self, request, **kwargs):
        return answer(protection_summary(player=request.player))


class LimitsView(APIView):
    @extend_schema(
        request=LimitSetSerializer,
        responses={200: schema_of(ProtectionShape), **problems(400, 401, 403, 404)},
        summary="Set a limit: lower at once, higher or removed after 24 hours",
    )
    def put(self, request, **kwargs):
        limit_set(player=request.player, **validated(LimitSetSerializer, request.data), actor=request.actor)
        return answer(protection_summary(player=request.player))


class ExclusionsView(APIView):
    @extend_schema(
        request=ExclusionStartSerializer,
        responses={201: schema_of(ExclusionShape), **problems(400, 401, 403, 404, 409)},
        summary="Start a time-out or a self-exclusion (signs the player out; cannot be lifted early)",
    )
    def post(self, request, **kwargs):
        shape = validated(ExclusionStartSerializer, request.data)
        exclusion = exclusion_start(player=request.player, **shape, actor=request.actor)
        return answer(ExclusionShape(kind=exclusion.kind, ends_at=exclusion.ends_at), status=201)


class RealityCheckView(APIView):
    @extend_schema(
        request=RealityCheckSerializer,
        responses={200: schema_of(ProtectionShape), **problems(400, 401, 403, 404)},
        summary="How often to remind the player of its session",
    )
    def put(self, request, **kwargs):
        shape = validated(RealityCheckSerializer, request.data)
        reality_check_set(player=request.player, **shape, actor=request.actor)
        return answer(protection_summary(player=request.player))


class SessionFiguresView(APIView):
    @extend_schema(
        responses={200: schema_of(SessionFiguresShape), **problems(401, 403, 404)}, summary="Reality-check figures"
    )
    def get(self, request, **kwargs):
        return answer(session_figures(player=request.player))


player_endpoints = [
    ("protection/", ProtectionView, "protection"),
    ("protection/limits/", LimitsView, "protection-limits"),
    ("protection/exclusions/", ExclusionsView, "protection-exclusions"),
    ("protection/reality-check/", RealityCheckView, "protection-reality-check"),
    ("protection/session/", SessionFiguresView, "protection-session"),
]
