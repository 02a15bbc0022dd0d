"""War matches: any preset of the rule book, dealt from a seed and played for fun (no money).

Anyone may deal one, signed in or not, and a match is replayed from its seed on every read, so
each request's work and answer are bounded: no game of more than MAX_BATTLES_LIMIT battles, an
answer of at most one page of battles and their events (`?offset=&limit=`, `page.next`), and
budgets of battles replayed per caller and for all anonymous callers together (429 beyond).
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from casino.api.serializers import MatchCreateSerializer, MatchDecisionSerializer
from casino.models import Match
from casino.selectors import MATCH_PAGE_BATTLES, MATCH_PAGE_MAX, match_get, match_representation, war_presets
from casino.services.matches import MAX_BATTLES_LIMIT, MatchReplay, match_decide, match_replay, match_start
from casino.shapes import MatchShape, WarPresetShape
from core.api import answer, problems, query_whole_number, validated
from core.errors import NotFound
from core.shapes import schema_of
from core.throttling import AnonymousRateThrottle, PlayerRateThrottle, WorkThrottle, throttles_charge

MAX_PAGE_OFFSET = MAX_BATTLES_LIMIT


class MatchThrottle(PlayerRateThrottle):
    """Signed-in players by user, everyone else by address: replaying a game costs CPU."""

    scope = "matches"


class MatchBattlesThrottle(WorkThrottle, PlayerRateThrottle):
    """Battles replayed, per signed-in player or per address (`THROTTLE_MATCH_BATTLES`)."""

    scope = "match_battles"


class AnonymousMatchBattlesThrottle(WorkThrottle):
    """Battles replayed for everyone not signed in, together (`THROTTLE_MATCH_BATTLES_ANONYMOUS`):
    however many addresses ask, games for fun take at most this much of the service's CPU."""

    scope = "match_battles_anonymous"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": "everyone"}


class MatchView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [MatchThrottle, MatchBattlesThrottle, AnonymousMatchBattlesThrottle]

    def caller_player(self):
        return getattr(self.request.user, "player", None) if self.request.user.is_authenticated else None

    def get_match(self, match_id):
        match = match_get(match_id=match_id, player=self.caller_player())
        if match is None:
            raise NotFound(gettext("no such match"))
        return match

    def handle_exception(self, exc):
        # A deal found too long was played to the bound before it was refused: it is charged too.
        played = getattr(exc, "battles_played", 0)
        if played:
            throttles_charge(self.request, self, played)
        return super().handle_exception(exc)

    def match_page(
        self, match: Match, replay: MatchReplay, *, replays: int = 1, offset: int = 0, limit: int = MATCH_PAGE_BATTLES
    ) -> MatchShape:
        """One page of the replayed match; the battles played for it charged to the caller's budgets."""
        throttles_charge(self.request, self, replays * max(len(replay.battles), 1) + replay.discarded)
        path = reverse("api:match", kwargs={"match_id": str(match.id)})
        return match_representation(
            match,
            replay,
            offset=offset,
            limit=limit,
            page_url=lambda following: self.request.build_absolute_uri(f"{path}?offset={following}&limit={limit}"),
        )


PAGE_PARAMETERS = [
    OpenApiParameter(
        "offset",
        {"type": "integer", "minimum": 0, "maximum": MAX_PAGE_OFFSET},
        OpenApiParameter.QUERY,
        description="The battles (and their events) to skip.",
    ),
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MATCH_PAGE_MAX},
        OpenApiParameter.QUERY,
        description=f"Battles per answer, with their events (default {MATCH_PAGE_BATTLES}).",
    ),
]


class WarPresetListView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonymousRateThrottle]

    @extend_schema(responses={200: schema_of(WarPresetShape)(many=True)}, summary="The War presets and their defaults")
    def get(self, request):
        return answer(war_presets())


class MatchListView(MatchView):
    @extend_schema(
        request=MatchCreateSerializer,
        responses={201: schema_of(MatchShape), **problems(400, 401, 403, 429)},
        summary="Deal a War match from a seed",
    )
    def post(self, request):
        shape = validated(MatchCreateSerializer, request.data)
        match, replay = match_start(player=self.caller_player(), **shape)
        return answer(self.match_page(match, replay), status=201)


class MatchDetailView(MatchView):
    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: schema_of(MatchShape), **problems(400, 401, 403, 404, 409, 429)},
        summary="A match, replayed: a page of its battles and their events",
    )
    def get(self, request, match_id):
        offset = query_whole_number(request, "offset", low=0, high=MAX_PAGE_OFFSET, default=0)
        limit = query_whole_number(request, "limit", low=1, high=MATCH_PAGE_MAX, default=MATCH_PAGE_BATTLES)
        match = self.get_match(match_id)
        return answer(self.match_page(match, match_replay(match), offset=offset, limit=limit))


class MatchDecisionView(MatchView):
    @extend_schema(
        request=MatchDecisionSerializer,
        responses={200: schema_of(MatchShape), **problems(400, 401, 403, 404, 409, 429)},
        summary="Steal War: the person's steal or top-card decision",
    )
    def post(self, request, match_id):
        shape = validated(MatchDecisionSerializer, request.data)
        match, replay = match_decide(
            match=self.get_match(match_id), steal=shape.get("steal", ...), top=shape.get("top", ...)
        )
        return answer(self.match_page(match, replay, replays=2))  # the position, then the move
