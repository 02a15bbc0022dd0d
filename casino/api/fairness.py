"""A player's provably fair seeds (API.md, docs/FAIRNESS.md). Player endpoints, mounted by
`accounts.api.player_paths`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from casino.api.serializers import RotateSerializer
from casino.selectors import fairness_representation
from casino.services.fairness import seed_pair_active, seed_pair_rotate
from casino.shapes import FairnessShape
from core.api import answer, problems, validated
from core.shapes import schema_of


class FairnessView(APIView):
    @extend_schema(responses={200: schema_of(FairnessShape), **problems(401, 403, 404)}, summary="The seeds in use")
    def get(self, request, **kwargs):
        player = request.player
        return answer(fairness_representation(player=player, active=seed_pair_active(player=player)))


class FairnessRotateView(APIView):
    @extend_schema(
        request=RotateSerializer,
        responses={200: schema_of(FairnessShape), **problems(400, 401, 403, 404, 409)},
        summary="Reveal the server seed and start a new pair",
    )
    def post(self, request, **kwargs):
        shape = validated(RotateSerializer, request.data)
        active = seed_pair_rotate(player=request.player, client_seed=shape.get("client_seed"), actor=request.actor)
        return answer(fairness_representation(player=request.player, active=active))


player_endpoints = [
    ("fairness/", FairnessView, "fairness"),
    ("fairness/rotate/", FairnessRotateView, "fairness-rotate"),
]
