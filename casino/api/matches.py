"""War matches: any preset of the rule book, dealt from a seed and played for fun (no money)."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.serializers import (
    MatchCreateSerializer,
    MatchDecisionSerializer,
    MatchSerializer,
    WarPresetSerializer,
)
from casino.selectors import match_get, match_representation, war_presets
from casino.services.matches import match_decide, match_replay, match_start
from core.api import problems, validated
from core.errors import NotFound
from core.throttling import AnonymousRateThrottle, PlayerRateThrottle


class MatchThrottle(PlayerRateThrottle):
    """Signed-in players by user, everyone else by address: replaying a game costs CPU."""

    scope = "matches"


class MatchView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [MatchThrottle]

    def caller_player(self):
        return getattr(self.request.user, "player", None) if self.request.user.is_authenticated else None

    def get_match(self, match_id):
        match = match_get(match_id=match_id, player=self.caller_player())
        if match is None:
            raise NotFound(gettext("no such match"))
        return match


class WarPresetListView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonymousRateThrottle]

    @extend_schema(responses={200: WarPresetSerializer(many=True)}, summary="The War presets and their defaults")
    def get(self, request):
        return Response(war_presets())


class MatchListView(MatchView):
    @extend_schema(
        request=MatchCreateSerializer,
        responses={201: MatchSerializer, **problems(400, 401, 403, 429)},
        summary="Deal a War match from a seed",
    )
    def post(self, request):
        shape = validated(MatchCreateSerializer, request.data)
        match, replay = match_start(player=self.caller_player(), **shape)
        return Response(match_representation(match, replay), status=201)


class MatchDetailView(MatchView):
    @extend_schema(responses={200: MatchSerializer, **problems(401, 403, 404, 429)}, summary="A match, replayed")
    def get(self, request, match_id):
        match = self.get_match(match_id)
        return Response(match_representation(match, match_replay(match)))


class MatchDecisionView(MatchView):
    @extend_schema(
        request=MatchDecisionSerializer,
        responses={200: MatchSerializer, **problems(400, 401, 403, 404, 409, 429)},
        summary="Steal War: the person's steal or top-card decision",
    )
    def post(self, request, match_id):
        shape = validated(MatchDecisionSerializer, request.data)
        match, replay = match_decide(match=self.get_match(match_id), steal=shape.get("steal", ...),
                                     top=shape.get("top", ...))  # fmt: skip
        return Response(match_representation(match, replay))
