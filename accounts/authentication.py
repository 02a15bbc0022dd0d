"""Who is calling the API: a player with a token (`Authorization: Token <key>`) or the session
cookie, or a partner casino signing every request (API.md: X-Partner-Key, X-Timestamp, X-Nonce,
X-Signature). Both schemes are described in the OpenAPI schema so that generated clients send them."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, TokenAuthentication, get_authorization_header

from accounts.game_sessions import game_session_authenticate
from accounts.models import Partner, Player
from accounts.partners import partner_authenticate
from accounts.tokens import token_authenticate
from core.nonces import IDEMPOTENT_POST, nonce_claim, nonce_expect
from core.throttling import CellRateThrottle


class PartnerPrincipal:
    """request.user for a partner's request: authenticated, but no person and no staff rights.
    `player` is the partner's player the request's path names, read with the partner (or None)."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_active = True

    def __init__(self, partner: Partner, player: Player | None = None) -> None:
        self.partner = partner
        self.player = player
        self.pk = f"partner:{partner.pk}"

    def __str__(self) -> str:
        return f"partner {self.partner.name}"


class PartnerSignatureAuthentication(BaseAuthentication):
    def authenticate(self, request):
        meta = request.META
        kwargs = (request.parser_context or {}).get("kwargs") or {}
        signed = partner_authenticate(
            key_id=meta.get("HTTP_X_PARTNER_KEY"),
            timestamp=meta.get("HTTP_X_TIMESTAMP"),
            nonce=meta.get("HTTP_X_NONCE"),
            signature=meta.get("HTTP_X_SIGNATURE"),
            method=request.method,
            path=request._request.get_full_path(),
            body=request._request.body,
            external_id=kwargs.get("external_id"),
        )
        # The nonce in PostgreSQL too (core/nonces.py): with the Idempotency-Key's claim, the first
        # statement of the request's work, where the view takes one; else now.
        nonce = nonce_expect(request, signer=f"partner:{signed.partner.pk}", nonce=meta["HTTP_X_NONCE"])
        view = (request.parser_context or {}).get("view")
        if not (request.method == "POST" and getattr(view, IDEMPOTENT_POST, False) and "HTTP_IDEMPOTENCY_KEY" in meta):
            nonce_claim(nonce)
        return PartnerPrincipal(signed.partner, signed.player), signed.partner

    def authenticate_header(self, request):
        return 'HMAC-SHA256 realm="partner"'


class PartnerRateThrottle(CellRateThrottle):
    """Requests per partner (all its players together)."""

    scope = "partner"

    def get_cache_key(self, request, view):
        partner = getattr(request.user, "partner", None)
        if partner is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": partner.pk}


class PartnerSignatureScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.PartnerSignatureAuthentication"
    name = "partnerSignature"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Partner-Key",
            "description": (
                "Every partner request also carries X-Timestamp (Unix seconds, within 300 s), X-Nonce "
                "(8-64 of [A-Za-z0-9_-], new every request) and X-Signature = hex(HMAC-SHA256(secret, "
                '"{timestamp}.{nonce}.{METHOD}.{path with query}.{raw body}")).'
            ),
        }


class GameSessionAuthentication(BaseAuthentication):
    """`Authorization: GameSession <token>`: the credential a launched game's page keeps in memory
    and sends itself (accounts/game_sessions.py). No browser adds it on its own, so it needs no
    CSRF check, and it works in a cross-site frame without cookies. It acts as its player's web
    front end does: only on player endpoints (views that say `game_session_allowed`)."""

    keyword = "GameSession"

    def authenticate(self, request):
        scheme, _, token = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme != self.keyword:
            return None
        view = (request.parser_context or {}).get("view")
        if not getattr(view, "game_session_allowed", False):
            raise exceptions.PermissionDenied(gettext("A game session can only play, as its player."))
        session = game_session_authenticate(token=token.strip())
        return session.player.user, session

    def authenticate_header(self, request):
        return f'{self.keyword} realm="game"'


class GameSessionScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.GameSessionAuthentication"
    name = "gameSession"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                'Send "Authorization: GameSession <token>": the credential of a launched game session, '
                "which only the game's own page holds (API.md, Game launch)."
            ),
        }


class PlayerTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>` (or `Bearer <key>`, as many clients send a token), checked by
    `accounts.tokens.token_authenticate`."""

    keywords = (b"token", b"bearer")

    def authenticate(self, request):
        """DRF's checks of the header, for either word (DRF's own takes only its `keyword`)."""
        words = get_authorization_header(request).split()
        if not words or words[0].lower() not in self.keywords:
            return None
        if len(words) != 2:
            raise exceptions.AuthenticationFailed(
                gettext('Send "Authorization: Token <token>": the word Token, a space and the token.')
            )
        try:
            key = words[1].decode()
        except UnicodeError:
            key = ""  # no token has such a key
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key):
        found = token_authenticate(key=key)
        if found is None:
            raise exceptions.AuthenticationFailed(gettext("The token is unknown, expired or revoked: sign in again."))
        return found


class PlayerTokenScheme(OpenApiAuthenticationExtension):
    """The token scheme as generators read it: an API key in the Authorization header whose value
    is the word Token, a space and the key (not a bearer token)."""

    target_class = "accounts.authentication.PlayerTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                'Send "Authorization: Token <token>" (the word Token, a space, the token from '
                'POST /api/v1/auth/token/); "Bearer <token>" is taken as the same. With a generated '
                'client, set its prefix to "Token".'
            ),
        }
