"""Game launch (API.md "Game launch"): a partner asks for the one-time URL that opens our table for
one of its players (or a demo table), and ends a game session. The sessions themselves are
accounts/game_sessions.py's; the pages they open are web/game.py's."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import PartnerRateThrottle, PartnerSignatureAuthentication
from accounts.game_sessions import (
    LANGUAGES,
    game_session_create,
    game_session_delete,
    game_session_demo_create,
    game_session_demo_delete,
)
from accounts.models import GameSession
from casino.api.serializers import TableIdField
from casino.models import Table
from casino.selectors import table_get_open
from casino.shapes import GameLaunchShape
from core.api import PrintableTextField, StrictChoiceField, answer, problems, validated
from core.errors import CurrencyMismatch, UnknownTable
from core.shapes import schema_of


class GameSessionCreateSerializer(serializers.Serializer):
    table = TableIdField(required=False, help_text="An open table's id; without it the player lands in the lobby.")
    language = StrictChoiceField(
        choices=sorted(LANGUAGES), required=False, help_text="The page's language; default: the player's."
    )
    lobby_url = PrintableTextField(
        required=False,
        max_length=2000,
        help_text='Where "back to the casino" leads: an https URL (http with OUTBOUND_ALLOW_PRIVATE=true).',
    )


def _table_or_refuse(table_id: int | None, *, currency: str | None) -> Table | None:
    if table_id is None:
        return None
    table = table_get_open(table_id=table_id)
    if table is None:
        raise UnknownTable()
    if currency is not None and table.currency != currency:
        raise CurrencyMismatch()
    return table


def _launched(request, session: GameSession, launch_token: str) -> Response:
    url = request.build_absolute_uri(reverse("web:game-launch", args=[launch_token]))
    return answer(GameLaunchShape(session=str(session.pk), url=url, expires_at=session.launch_expires_at), status=201)


class GameSessionListView(APIView):
    """Mounted for partners only (`partner_endpoints`): `request.player` is the partner's player."""

    @extend_schema(
        request=GameSessionCreateSerializer,
        responses={201: schema_of(GameLaunchShape), **problems(400, 401, 404, 429)},
        summary="A one-time URL that opens the table for the partner's player",
    )
    def post(self, request, external_id):
        shape = validated(GameSessionCreateSerializer, request.data)
        player = request.player
        table = _table_or_refuse(shape.get("table"), currency=player.currency)
        session, launch = game_session_create(
            partner=request.auth,
            player=player,
            table_id=table.pk if table else None,
            language=shape.get("language"),
            lobby_url=shape.get("lobby_url", ""),
        )
        return _launched(request, session, launch)


class GameSessionDetailView(APIView):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="The game session is ended."), **problems(401, 404, 429)},
        summary="End a game session now",
    )
    def delete(self, request, external_id, session_id):
        game_session_delete(partner=request.auth, player=request.player, session_id=session_id)
        return Response(status=204)


class PartnerOnly(APIView):
    authentication_classes = [PartnerSignatureAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [PartnerRateThrottle]


class DemoSessionListView(PartnerOnly):
    @extend_schema(
        request=GameSessionCreateSerializer,
        responses={201: schema_of(GameLaunchShape), **problems(400, 401, 429)},
        summary="A one-time URL that opens a play-money table (a demo: nobody's wallet, not in the books)",
    )
    def post(self, request):
        shape = validated(GameSessionCreateSerializer, request.data)
        table = _table_or_refuse(shape.get("table"), currency=None)
        session, launch = game_session_demo_create(
            partner=request.auth,
            currency=table.currency if table else "EUR",
            table_id=table.pk if table else None,
            language=shape.get("language"),
            lobby_url=shape.get("lobby_url", ""),
        )
        return _launched(request, session, launch)


class DemoSessionDetailView(PartnerOnly):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="The demo session is ended."), **problems(401, 404, 429)},
        summary="End a demo session now",
    )
    def delete(self, request, session_id):
        game_session_demo_delete(partner=request.auth, session_id=session_id)
        return Response(status=204)


# Mounted under partner/players/<external_id>/ for partners only (config/api_urls.py): a game
# session is asked for by the partner, never by the player or by a game session itself.
partner_endpoints = [
    ("sessions/", GameSessionListView, "game-sessions"),
    ("sessions/<str:session_id>/", GameSessionDetailView, "game-session"),
]
