"""API views: fetch the caller and the player, call one service or selector, shape the answer.

Every player endpoint exists twice: for a signed-in player (`/api/v1/...`) and for a partner
acting for one of its players (`/api/v1/partner/players/{external_id}/...`).
"""

from __future__ import annotations

from django.contrib.auth import login, logout
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.authtoken.models import Token
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from accounts.partners import partner_player_get, partner_player_upsert, partner_transfer
from accounts.services import player_signup, user_authenticate
from casino.api import serializers as s
from casino.api.authentication import PartnerSignatureAuthentication
from casino.api.idempotency import IDEMPOTENCY_HEADER, idempotent
from casino.api.throttling import PartnerRateThrottle
from casino.selectors import (
    fairness_representation,
    match_get,
    match_representation,
    round_get_for_player,
    round_list_for_player,
    round_representation,
    table_list_open,
    table_representation,
    war_presets,
)
from casino.services.callers import Caller
from casino.services.fairness import seed_pair_active, seed_pair_rotate
from casino.services.matches import match_decide, match_replay, match_start
from casino.services.rounds import round_decide, round_place, rounds_decide_overdue_for_player
from core.errors import InvalidInput, NotFound, ServiceError
from core.times import rfc3339
from ledger.selectors import account_lines, player_wallet_summary
from ledger.services import player_accounts_open
from protection.selectors import protection_summary, session_figures
from protection.services import exclusion_start, limit_set, reality_check_set, session_start


def problems(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(s.ProblemSerializer, description="problem+json") for code in codes}


class Paginator(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500


def _body(request) -> dict:
    if not isinstance(request.data, dict):
        raise InvalidInput(gettext("the body is one JSON object"))
    return request.data


class NotAPlayer(ServiceError):
    code = "not_a_player"
    status = 403
    title = gettext_lazy("This login has no player wallet.")


# --- Who is asking, for which player -----------------------------------------------------------


class PlayerScoped(APIView):
    """The signed-in player, acting for itself."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [UserRateThrottle]

    def get_player(self):
        player = getattr(self.request.user, "player", None)
        if player is None:
            raise NotAPlayer()
        return player

    def get_caller(self, player) -> Caller:
        return Caller.player(player)


class PartnerScoped(PlayerScoped):
    """A partner casino, acting for its player `external_id`."""

    authentication_classes = [PartnerSignatureAuthentication]
    throttle_classes = [PartnerRateThrottle]

    def get_player(self):
        return partner_player_get(partner=self.request.auth, external_id=self.kwargs["external_id"])

    def get_caller(self, player) -> Caller:
        return Caller.partner(self.request.auth)


# --- Public ----------------------------------------------------------------------------------------


class TableListView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(responses={200: s.TableSerializer(many=True)}, summary="The open tables")
    def get(self, request):
        return Response([table_representation(t) for t in table_list_open()])


class SignupView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.SignupSerializer, responses={201: s.PlayerSerializer, **problems(400, 429)})
    def post(self, request):
        data = _body(request)
        player = player_signup(
            username=data.get("username"),
            password=data.get("password"),
            email=data.get("email", ""),
            request=request._request,
        )
        return Response(_player_json(player), status=201)


def _player_json(player) -> dict:
    return {
        "id": str(player.pk),
        "username": player.user.username,
        "email": player.user.email,
        "currency": player.currency,
        "external_id": player.external_id or None,
    }


class TokenView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.TokenRequestSerializer, responses={200: s.TokenSerializer, **problems(400, 429)})
    def post(self, request):
        data = _body(request)
        user = user_authenticate(request=request, username=data.get("username"), password=data.get("password"))
        if user is None:
            raise InvalidCredentials()
        token, _ = Token.objects.get_or_create(user=user)
        if getattr(user, "player", None) is not None:
            session_start(player=user.player)
        return Response({"token": token.key})


class InvalidCredentials(InvalidInput):
    code = "invalid_credentials"
    title = gettext_lazy("The username or the password is wrong.")


class SessionView(APIView):
    """Sign in and out with the session cookie (the web front end); CSRF protection applies."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.TokenRequestSerializer, responses={200: s.PlayerSerializer, **problems(400, 403, 429)})
    def post(self, request):
        data = _body(request)
        user = user_authenticate(request=request, username=data.get("username"), password=data.get("password"))
        if user is None:
            raise InvalidCredentials()
        login(request._request, user)
        player = getattr(user, "player", None)
        if player is None:
            raise NotAPlayer()
        session_start(player=player)
        return Response(_player_json(player))

    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        logout(request._request)
        return Response(status=204)


# --- A player's wallet, rounds and fairness --------------------------------------------------------


class WalletView(PlayerScoped):
    @extend_schema(responses={200: s.WalletSerializer, **problems(401, 403, 404)})
    def get(self, request, **kwargs):
        return Response(player_wallet_summary(player=self.get_player()))


class WalletTransactionsView(PlayerScoped):
    @extend_schema(responses={200: s.WalletLineSerializer(many=True), **problems(401, 403, 404)})
    def get(self, request, **kwargs):
        wallet, _ = player_accounts_open(player=self.get_player())
        paginator = Paginator()
        page = paginator.paginate_queryset(account_lines(account=wallet), request, view=self)
        return paginator.get_paginated_response(
            [
                {
                    "id": str(line.pk),
                    "kind": line.entry.kind,
                    "amount": line.signed_amount,
                    "balance_after": line.balance_after,
                    "round": line.entry.reference_id if line.entry.reference_type == "round" else None,
                    "created_at": rfc3339(line.entry.created_at),
                }
                for line in page
            ]
        )


class RoundListView(PlayerScoped):
    @extend_schema(responses={200: s.RoundSerializer(many=True), **problems(401, 403, 404)})
    def get(self, request, **kwargs):
        player = self.get_player()
        rounds_decide_overdue_for_player(player=player)
        paginator = Paginator()
        page = paginator.paginate_queryset(round_list_for_player(player=player), request, view=self)
        return paginator.get_paginated_response([round_representation(r) for r in page])

    @extend_schema(
        request=s.RoundCreateSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.RoundSerializer, **problems(400, 401, 403, 404, 409, 422, 429)},
        summary="Place a round",
    )
    def post(self, request, **kwargs):
        player = self.get_player()
        caller = self.get_caller(player)

        def work():
            data = _body(request)
            round_ = round_place(
                player=player, table_id=data.get("table"), main_bet=data.get("main_bet"),
                tie_bet=data.get("tie_bet", 0), caller=caller,
            )  # fmt: skip
            return 201, round_representation(round_)

        return idempotent(request, scope=caller.scope, work=work)


class RoundDetailView(PlayerScoped):
    @extend_schema(responses={200: s.RoundSerializer, **problems(401, 403, 404)})
    def get(self, request, round_id, **kwargs):
        player = self.get_player()
        rounds_decide_overdue_for_player(player=player)
        round_ = round_get_for_player(player=player, round_id=round_id)
        if round_ is None:
            raise NotFound(gettext("no such round"))
        return Response(round_representation(round_))


class RoundDecisionView(PlayerScoped):
    @extend_schema(
        request=s.DecisionSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: s.RoundSerializer, **problems(400, 401, 403, 404, 409, 422, 429)},
        summary="Go to war or surrender",
    )
    def post(self, request, round_id, **kwargs):
        player = self.get_player()
        caller = self.get_caller(player)
        rounds_decide_overdue_for_player(player=player)  # a decision after the deadline comes too late

        def work():
            round_ = round_decide(player=player, round_id=round_id, action=_body(request).get("action"), caller=caller)
            return 200, round_representation(round_)

        return idempotent(request, scope=caller.scope, work=work)


class FairnessView(PlayerScoped):
    @extend_schema(responses={200: s.FairnessSerializer, **problems(401, 403, 404)})
    def get(self, request, **kwargs):
        player = self.get_player()
        return Response(fairness_representation(player=player, active=seed_pair_active(player=player)))


class FairnessRotateView(PlayerScoped):
    @extend_schema(
        request=s.RotateSerializer, responses={200: s.FairnessSerializer, **problems(400, 401, 403, 404, 409)}
    )
    def post(self, request, **kwargs):
        player = self.get_player()
        active = seed_pair_rotate(
            player=player, client_seed=_body(request).get("client_seed"), caller=self.get_caller(player)
        )
        return Response(fairness_representation(player=player, active=active))


# --- Player protection ------------------------------------------------------------------------------


class ProtectionView(PlayerScoped):
    @extend_schema(
        responses={200: s.ProtectionSerializer, **problems(401, 403, 404)}, summary="Limits, exclusion, session"
    )
    def get(self, request, **kwargs):
        return Response(protection_summary(player=self.get_player()))


class LimitsView(PlayerScoped):
    @extend_schema(
        request=s.LimitSetSerializer,
        responses={200: s.ProtectionSerializer, **problems(400, 401, 403, 404)},
        summary="Set a limit: lower at once, higher or removed after 24 hours",
    )
    def put(self, request, **kwargs):
        player = self.get_player()
        data = _body(request)
        limit_set(player=player, kind=data.get("kind"), period=data.get("period"), amount=data.get("amount"),
                  caller=self.get_caller(player))  # fmt: skip
        return Response(protection_summary(player=player))


class ExclusionsView(PlayerScoped):
    @extend_schema(
        request=s.ExclusionStartSerializer,
        responses={201: s.ExclusionSerializer, **problems(400, 401, 403, 404, 409)},
        summary="Start a time-out or a self-exclusion (signs the player out; cannot be lifted early)",
    )
    def post(self, request, **kwargs):
        player = self.get_player()
        data = _body(request)
        exclusion = exclusion_start(player=player, kind=data.get("kind"), days=data.get("days"),
                                    months=data.get("months"), caller=self.get_caller(player))  # fmt: skip
        return Response({"kind": exclusion.kind, "ends_at": rfc3339(exclusion.ends_at)}, status=201)


class RealityCheckView(PlayerScoped):
    @extend_schema(
        request=s.RealityCheckSerializer, responses={200: s.ProtectionSerializer, **problems(400, 401, 403, 404)}
    )
    def put(self, request, **kwargs):
        player = self.get_player()
        reality_check_set(
            player=player, interval_minutes=_body(request).get("interval_minutes"), caller=self.get_caller(player)
        )
        return Response(protection_summary(player=player))


class SessionFiguresView(PlayerScoped):
    @extend_schema(
        responses={200: s.SessionFiguresSerializer, **problems(401, 403, 404)}, summary="Reality-check figures"
    )
    def get(self, request, **kwargs):
        return Response(session_figures(player=self.get_player()))


# --- Partner only ---------------------------------------------------------------------------------


class PartnerPlayerView(PartnerScoped):
    @extend_schema(
        request=s.PartnerPlayerSerializer,
        responses={200: s.PlayerSerializer, 201: s.PlayerSerializer, **problems(400, 401, 422)},
        summary="Create the partner's player if new; return it either way",
    )
    def put(self, request, external_id):
        player, created = partner_player_upsert(
            partner=request.auth, external_id=external_id, currency=_body(request).get("currency")
        )
        return Response(_player_json(player), status=201 if created else 200)


class PartnerTransferView(PartnerScoped):
    @extend_schema(
        request=s.TransferCreateSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: s.TransferSerializer, **problems(400, 401, 404, 409, 422, 429)},
        summary="Move money between the partner and the player's wallet",
    )
    def post(self, request, external_id):
        player = self.get_player()
        partner = request.auth

        def work():
            data = _body(request)
            transfer = partner_transfer(
                partner=partner, player=player, direction=data.get("direction"), amount=data.get("amount"),
                reference=data.get("reference"),
            )  # fmt: skip
            return 201, {
                "id": str(transfer.id),
                "direction": transfer.direction,
                "amount": transfer.amount,
                "currency": transfer.currency,
                "reference": transfer.reference,
                "balance": player_wallet_summary(player=player)["balance"],
                "created_at": rfc3339(transfer.created_at),
            }

        return idempotent(request, scope=Caller.partner(partner).scope, work=work)


def partner_variant(view: type[PlayerScoped]) -> type[PlayerScoped]:
    """The same endpoint, reached by a partner for one of its players."""
    return type(f"Partner{view.__name__}", (PartnerScoped, view), {"__doc__": view.__doc__})


# --- War matches: any preset of the rule book, played for fun ---------------------------------------


class MatchThrottle(UserRateThrottle):
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
    throttle_classes = [AnonRateThrottle]

    @extend_schema(responses={200: s.WarPresetSerializer(many=True)}, summary="The War presets and their defaults")
    def get(self, request):
        return Response(war_presets())


class MatchListView(MatchView):
    @extend_schema(
        request=s.MatchCreateSerializer,
        responses={201: s.MatchSerializer, **problems(400, 429)},
        summary="Deal a War match from a seed",
    )
    def post(self, request):
        data = _body(request)
        match, replay = match_start(
            player=self.caller_player(), preset=data.get("preset"), options=data.get("options"),
            client_seed=data.get("client_seed", ""), server_seed=data.get("server_seed"),
            human_seat=data.get("human_seat"),
        )  # fmt: skip
        return Response(match_representation(match, replay), status=201)


class MatchDetailView(MatchView):
    @extend_schema(responses={200: s.MatchSerializer, **problems(404, 429)})
    def get(self, request, match_id):
        match = self.get_match(match_id)
        return Response(match_representation(match, match_replay(match)))


class MatchDecisionView(MatchView):
    @extend_schema(
        request=s.MatchDecisionSerializer,
        responses={200: s.MatchSerializer, **problems(400, 404, 409, 429)},
        summary="Steal War: the person's steal or top-card decision",
    )
    def post(self, request, match_id):
        data = _body(request)
        match, replay = match_decide(
            match=self.get_match(match_id), steal=data.get("steal", ...), top=data.get("top", ...)
        )
        return Response(match_representation(match, replay))
