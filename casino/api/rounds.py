"""A player's rounds (API.md): place one, decide a tie, read them. Player endpoints: the player
and who acts come from the scope they are mounted with (`accounts.api`)."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from casino.api.serializers import DecisionSerializer, RoundCreateSerializer
from casino.selectors import round_get_for_player, round_list_for_player, round_representation
from casino.services.rounds import round_decide, round_place, rounds_decide_overdue_for_player
from casino.services.seamless import (
    seamless_debit_unused,
    seamless_raise_debit,
    seamless_round_go_to_war,
    seamless_round_place,
    seamless_stake_debit,
)
from casino.shapes import RoundShape
from core.api import PAGE_PARAMETERS, answer, paginated, problems, validated
from core.errors import NotFound
from core.idempotency import (
    IDEMPOTENCY_HEADER,
    idempotent,
    idempotent_around_call,
    idempotent_folded,
    idempotent_folded_around_call,
)
from core.shapes import page_of, schema_of


class RoundListView(APIView):
    idempotency_claims_nonce = True  # its POST records a partner's nonce with its key (core/nonces.py)

    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: schema_of(page_of(RoundShape)), **problems(400, 401, 403, 404)},
        summary="The player's rounds, newest first",
    )
    def get(self, request, **kwargs):
        rounds_decide_overdue_for_player(player=request.player)  # a deadline holds even with no job running
        rounds = round_list_for_player(player=request.player)
        return answer(paginated(request, self, rounds, round_representation, item=RoundShape))

    @extend_schema(
        request=RoundCreateSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: schema_of(RoundShape), **problems(400, 401, 403, 404, 409, 422, 429, 503)},
        summary="Place a round",
    )
    def post(self, request, **kwargs):
        shape = validated(RoundCreateSerializer, request.data)
        player, actor = request.player, request.actor
        bets = {"table_id": shape["table"], "main_bet": shape["main_bet"], "tie_bet": shape["tie_bet"]}
        if player.is_seamless:  # the stake is debited from the partner's wallet first (casino/services/seamless.py)
            return idempotent_folded_around_call(  # the key's statements ride in the stake's own four
                request,
                scope=actor.scope,
                call=lambda request_key: seamless_stake_debit(player=player, request_key=request_key, **bets),
                work=lambda debit, request_key: seamless_round_place(
                    debit=debit, player=player, actor=actor, request_key=request_key, **bets
                ),
                respond=lambda round_: (201, round_representation(round_)),
                on_refusal=lambda debit, error: seamless_debit_unused(debit=debit, error=error),
                autocommit=True,  # the round's two statements each commit alone, as below
            )

        return idempotent_folded(  # the key's claim and stored response ride in the round's own two statements
            request,
            scope=actor.scope,
            work=lambda request_key: round_place(player=player, actor=actor, request_key=request_key, **bets),
            respond=lambda round_: (201, round_representation(round_)),
            autocommit=True,  # each statement commits alone (casino/services/rounds.py `round_place`)
        )


class RoundDetailView(APIView):
    @extend_schema(responses={200: schema_of(RoundShape), **problems(401, 403, 404)}, summary="One round")
    def get(self, request, round_id, **kwargs):
        rounds_decide_overdue_for_player(player=request.player)  # a deadline holds even with no job running
        round_ = round_get_for_player(player=request.player, round_id=round_id)
        if round_ is None:
            raise NotFound(gettext("no such round"))
        return answer(round_representation(round_))


class RoundDecisionView(APIView):
    idempotency_claims_nonce = True

    @extend_schema(
        request=DecisionSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: schema_of(RoundShape), **problems(400, 401, 403, 404, 409, 422, 429, 503)},
        summary="Go to war or surrender",
    )
    def post(self, request, round_id, **kwargs):
        action = validated(DecisionSerializer, request.data)["action"]
        player, actor = request.player, request.actor
        rounds_decide_overdue_for_player(player=player)  # a decision after the deadline comes too late
        if player.is_seamless and action == "war":  # the raise is debited from the partner's wallet first
            return idempotent_around_call(
                request,
                scope=actor.scope,
                call=lambda key, request_hash: seamless_raise_debit(player=player, round_id=round_id),
                work=lambda debit: (
                    200,
                    round_representation(
                        seamless_round_go_to_war(debit=debit, player=player, round_id=round_id, actor=actor)
                    ),
                ),
                on_refusal=lambda debit, error: seamless_debit_unused(debit=debit, error=error),
            )

        def work():
            round_ = round_decide(player=player, round_id=round_id, action=action, actor=actor)
            return 200, round_representation(round_)

        return idempotent(request, scope=actor.scope, work=work)


player_endpoints = [
    ("rounds/", RoundListView, "rounds"),
    ("rounds/<str:round_id>/", RoundDetailView, "round"),
    ("rounds/<str:round_id>/decision/", RoundDecisionView, "round-decision"),
]
