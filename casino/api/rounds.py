"""A player's rounds (API.md): place one, decide a tie, read them. Player endpoints: the player
and who acts come from the scope they are mounted with (`accounts.api`)."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.serializers import DecisionSerializer, RoundCreateSerializer, RoundSerializer
from casino.selectors import round_get_for_player, round_list_for_player, round_representation
from casino.services.rounds import round_decide, round_place
from core.api import PAGE_PARAMETERS, page_of, paginated, problems, validated
from core.errors import NotFound
from core.idempotency import IDEMPOTENCY_HEADER, idempotent


class RoundListView(APIView):
    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: page_of(RoundSerializer), **problems(400, 401, 403, 404)},
        summary="The player's rounds, newest first",
    )
    def get(self, request, **kwargs):
        rounds = round_list_for_player(player=request.player)
        return Response(paginated(request, self, rounds, round_representation))

    @extend_schema(
        request=RoundCreateSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RoundSerializer, **problems(400, 401, 403, 404, 409, 422, 429)},
        summary="Place a round",
    )
    def post(self, request, **kwargs):
        shape = validated(RoundCreateSerializer, request.data)
        player, actor = request.player, request.actor

        def work():
            round_ = round_place(
                player=player, table_id=shape["table"], main_bet=shape["main_bet"], tie_bet=shape["tie_bet"],
                actor=actor,
            )  # fmt: skip
            return 201, round_representation(round_)

        return idempotent(request, scope=actor.scope, work=work)


class RoundDetailView(APIView):
    @extend_schema(responses={200: RoundSerializer, **problems(401, 403, 404)}, summary="One round")
    def get(self, request, round_id, **kwargs):
        round_ = round_get_for_player(player=request.player, round_id=round_id)
        if round_ is None:
            raise NotFound(gettext("no such round"))
        return Response(round_representation(round_))


class RoundDecisionView(APIView):
    @extend_schema(
        request=DecisionSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: RoundSerializer, **problems(400, 401, 403, 404, 409, 422, 429)},
        summary="Go to war or surrender",
    )
    def post(self, request, round_id, **kwargs):
        action = validated(DecisionSerializer, request.data)["action"]
        player, actor = request.player, request.actor

        def work():
            round_ = round_decide(player=player, round_id=round_id, action=action, actor=actor)
            return 200, round_representation(round_)

        return idempotent(request, scope=actor.scope, work=work)


player_endpoints = [
    ("rounds/", RoundListView, "rounds"),
    ("rounds/<str:round_id>/", RoundDetailView, "round"),
    ("rounds/<str:round_id>/decision/", RoundDecisionView, "round-decision"),
]
