"""The accounts HTTP surface (API.md): sign-up and sign-in, partners' players and transfers, and
who a player endpoint acts for.

Every player endpoint (the wallet, rounds, protection...) is an APIView that reads
`request.player` and `request.actor`. It is mounted twice by `player_paths`: for a signed-in
player (`/api/v1/...`, token or session cookie) and for a partner acting for one of its players
(`/api/v1/partner/players/{external_id}/...`, signed requests).
"""

from __future__ import annotations

from django.contrib.auth import logout, update_session_auth_hash
from django.urls import path
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.authentication import CSRFCheck
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import PartnerRateThrottle, PartnerSignatureAuthentication, PlayerTokenAuthentication
from accounts.models import Player, Transfer
from accounts.partners import partner_player_get, partner_player_upsert, partner_transfer
from accounts.selectors import partner_transfers
from accounts.serializers import (
    CredentialsSerializer,
    PartnerPlayerSerializer,
    PasswordChangeSerializer,
    SignupSerializer,
    TransferCreateSerializer,
    TransferFilterSerializer,
)
from accounts.services import player_password_change, player_session_sign_in, player_signup, player_token_sign_in
from accounts.shapes import PasswordChangedShape, PlayerShape, TokenShape, TransferListedShape, TransferShape
from accounts.tokens import token_issue, tokens_revoke
from core.actors import Actor
from core.api import PAGE_PARAMETERS, answer, paginated, problems, validated
from core.errors import NotAPlayer
from core.idempotency import IDEMPOTENCY_HEADER, idempotent
from core.shapes import page_of, schema_of
from core.throttling import AnonymousRateThrottle, PlayerRateThrottle
from ledger.selectors import player_wallet_summary

# --- Who a player endpoint acts for ------------------------------------------------------------------


class PlayerScoped(APIView):
    """The signed-in player, acting for itself."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [PlayerRateThrottle]
    game_session_allowed = True  # a launched game's page plays as its player (accounts/authentication.py)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        request.player = self.scoped_player()
        request.actor = self.scoped_actor(request.player)

    def scoped_player(self):
        player = getattr(self.request.user, "player", None)
        if player is None:
            raise NotAPlayer()
        return player

    def scoped_actor(self, player) -> Actor:
        return Actor.player(player)


class PartnerScoped(PlayerScoped):
    """A partner casino, acting for its player `external_id`."""

    authentication_classes = [PartnerSignatureAuthentication]
    throttle_classes = [PartnerRateThrottle]
    game_session_allowed = False

    def scoped_player(self):
        player = self.request.user.player  # read with the partner when the signature was checked
        if player is not None and player.external_id == self.kwargs["external_id"]:
            return player
        return partner_player_get(partner=self.request.auth, external_id=self.kwargs["external_id"])

    def scoped_actor(self, player) -> Actor:
        return Actor.partner(self.request.auth)


def _scoped(scope: type[PlayerScoped], view: type[APIView]) -> type[APIView]:
    return type(f"{scope.__name__.removesuffix('Scoped')}{view.__name__}", (scope, view), {"__doc__": view.__doc__})


PARTNER_PREFIX = "partner/players/<str:external_id>/"


def player_paths(endpoints, *, partner: bool) -> list:
    """URL patterns of player endpoints, given as (route, view, name): for the player itself, or
    under `partner/players/<external_id>/` for a partner."""
    if partner:
        return [
            path(f"{PARTNER_PREFIX}{route}", _scoped(PartnerScoped, view).as_view(), name=f"partner-{name}")
            for route, view, name in endpoints
        ]
    return [path(route, _scoped(PlayerScoped, view).as_view(), name=name) for route, view, name in endpoints]


def player_representation(player: Player) -> PlayerShape:
    return PlayerShape(
        id=str(player.pk),
        username=player.user.username,
        email=player.user.email,
        currency=player.currency,
        external_id=player.external_id or None,
    )


# --- Public: sign up, sign in ------------------------------------------------------------------------


class SignupView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonymousRateThrottle]

    @extend_schema(
        request=SignupSerializer, responses={201: schema_of(PlayerShape), **problems(400, 429)}, summary="Sign up"
    )
    def post(self, request):
        player = player_signup(**validated(SignupSerializer, request.data), request=request._request)
        return answer(player_representation(player), status=201)


class TokenView(APIView):
    """Sign in for a token (a new one every time) and sign out, which ends the token sent."""

    authentication_classes = [PlayerTokenAuthentication]
    throttle_classes = [AnonymousRateThrottle]

    def get_permissions(self):
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_authenticators(self):
        if getattr(self.request, "method", None) == "POST":
            return []  # a sign-in ignores a stale token still in the client's headers
        return super().get_authenticators()

    @extend_schema(
        request=CredentialsSerializer,
        responses={200: schema_of(TokenShape), **problems(400, 429)},
        summary="Get a token",
    )
    def post(self, request):
        token = player_token_sign_in(request=request._request, **validated(CredentialsSerializer, request.data))
        return answer(TokenShape(token=token))

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="The token is ended."), **problems(401)},
        summary="Sign out: end this token",
    )
    def delete(self, request):
        tokens_revoke(
            user=request.user, digests=[request.auth.pk], actor=Actor.player(request.user.player), reason="signed_out"
        )
        return Response(status=204)


class PasswordView(APIView):
    """A signed-in player changes their password (the current one, then the new one)."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [PlayerRateThrottle]

    @extend_schema(
        request=PasswordChangeSerializer,
        responses={200: schema_of(PasswordChangedShape), **problems(400, 401, 403, 429)},
        summary="Change the password",
    )
    def post(self, request):
        player = getattr(request.user, "player", None)
        if player is None:
            raise NotAPlayer()
        shape = validated(PasswordChangeSerializer, request.data)
        player_password_change(request=request._request, player=player, **shape)
        if request.auth is not None:  # a token: every token ended with the old password; here is a new one
            return answer(PasswordChangedShape(token=token_issue(user=request.user)))
        update_session_auth_hash(request._request, request.user)  # this session goes on, the others end
        return answer(PasswordChangedShape(token=None))


def _refuse_cross_site(request) -> None:
    """Django's CSRF check (Origin, Referer, the csrftoken cookie and its X-CSRFToken header),
    for a request with no session yet: DRF checks only signed-in sessions, which leaves signing a
    visitor in to the attacker's account (login CSRF) open."""
    check = CSRFCheck(lambda request: None)
    check.process_request(request)
    if check.process_view(request, None, (), {}):
        message = gettext("A sign-in with the session cookie needs this site's CSRF token (X-CSRFToken header).")
        raise PermissionDenied(message)


class SessionView(APIView):
    """Sign in and out with the session cookie (the web front end); CSRF protection applies, to
    the sign-in too."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonymousRateThrottle]

    @extend_schema(
        request=CredentialsSerializer,
        responses={200: schema_of(PlayerShape), **problems(400, 403, 429)},
        summary="Sign in with the session cookie",
    )
    def post(self, request):
        _refuse_cross_site(request._request)
        player = player_session_sign_in(request=request._request, **validated(CredentialsSerializer, request.data))
        return answer(player_representation(player))

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Signed out.")}, summary="Sign out")
    def delete(self, request):
        logout(request._request)
        return Response(status=204)


# --- Partners only ---------------------------------------------------------------------------------------


class PartnerPlayerView(APIView):
    authentication_classes = [PartnerSignatureAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [PartnerRateThrottle]

    @extend_schema(
        request=PartnerPlayerSerializer,
        responses={200: schema_of(PlayerShape), 201: schema_of(PlayerShape), **problems(400, 401, 422, 429)},
        summary="Create the partner's player if new; return it either way",
    )
    def put(self, request, external_id):
        shape = validated(PartnerPlayerSerializer, request.data)
        player, created = partner_player_upsert(partner=request.auth, external_id=external_id, **shape)
        return answer(player_representation(player), status=201 if created else 200)


def _transfer_fields(transfer: Transfer) -> dict:
    return {
        "id": str(transfer.id),
        "player": transfer.player.external_id,
        "direction": transfer.direction,
        "amount": transfer.amount,
        "currency": transfer.currency,
        "reference": transfer.reference,
        "created_at": transfer.created_at,
    }


def transfer_representation(transfer: Transfer) -> TransferListedShape:
    return TransferListedShape(**_transfer_fields(transfer))


def _transfer_filters(request) -> dict:
    return {name: request.query_params[name] for name in ("date", "reference") if name in request.query_params}


TRANSFER_PAGE = schema_of(page_of(TransferListedShape))
TRANSFER_FILTERS = [
    OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.QUERY, description="Only this UTC day's transfers."),
    OpenApiParameter(
        "reference",
        {"type": "string", "minLength": 1, "maxLength": 128},
        OpenApiParameter.QUERY,
        description="Only the transfer with this reference.",
    ),
]


class PartnerTransfersView(APIView):
    """Every transfer of the partner's players, newest first (reconciliation: `?date=`)."""

    authentication_classes = [PartnerSignatureAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [PartnerRateThrottle]

    @extend_schema(
        parameters=[*TRANSFER_FILTERS, *PAGE_PARAMETERS],
        responses={200: TRANSFER_PAGE, **problems(400, 401, 429)},
        summary="The partner's transfers, newest first",
    )
    def get(self, request):
        filters = validated(TransferFilterSerializer, _transfer_filters(request))
        transfers = partner_transfers(partner=request.auth, **filters)
        return answer(paginated(request, self, transfers, transfer_representation, item=TransferListedShape))


class PartnerTransferView(PartnerScoped):
    idempotency_claims_nonce = True  # its POST records the nonce with its key (core/nonces.py)

    @extend_schema(
        parameters=[*TRANSFER_FILTERS, *PAGE_PARAMETERS],
        responses={200: TRANSFER_PAGE, **problems(400, 401, 404, 429)},
        summary="The player's transfers, newest first",
    )
    def get(self, request, external_id):
        filters = validated(TransferFilterSerializer, _transfer_filters(request))
        transfers = partner_transfers(partner=request.auth, player=request.player, **filters)
        return answer(paginated(request, self, transfers, transfer_representation, item=TransferListedShape))

    @extend_schema(
        request=TransferCreateSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: schema_of(TransferShape), **problems(400, 401, 404, 409, 422, 429)},
        summary="Move money between the partner and the player's wallet",
    )
    def post(self, request, external_id):
        shape = validated(TransferCreateSerializer, request.data)
        partner, player = request.auth, request.player

        def work():
            transfer = partner_transfer(partner=partner, player=player, **shape)
            balance = player_wallet_summary(player=player)["balance"]
            return 201, TransferShape(**_transfer_fields(transfer), balance=balance)

        return idempotent(request, scope=request.actor.scope, work=work)


urlpatterns = [
    path("players/", SignupView.as_view(), name="signup"),
    path("auth/token/", TokenView.as_view(), name="token"),
    path("auth/session/", SessionView.as_view(), name="session"),
    path("auth/password/", PasswordView.as_view(), name="password"),
    path("partner/players/<str:external_id>/", PartnerPlayerView.as_view(), name="partner-player"),
    path("partner/players/<str:external_id>/transfers/", PartnerTransferView.as_view(), name="partner-transfers"),
    path("partner/transfers/", PartnerTransfersView.as_view(), name="partner-all-transfers"),
]
