"""Partner casinos sign every request (API.md): X-Partner-Key, X-Timestamp, X-Nonce, X-Signature."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token

from accounts.models import Partner
from accounts.partners import partner_authenticate


class PartnerPrincipal:
    """request.user for a partner's request: authenticated, but no person and no staff rights."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False
    is_active = True

    def __init__(self, partner: Partner) -> None:
        self.partner = partner
        self.pk = f"partner:{partner.pk}"

    def __str__(self) -> str:
        return f"partner {self.partner.name}"


class PartnerSignatureAuthentication(BaseAuthentication):
    def authenticate(self, request):
        meta = request.META
        partner = partner_authenticate(
            key_id=meta.get("HTTP_X_PARTNER_KEY"),
            timestamp=meta.get("HTTP_X_TIMESTAMP"),
            nonce=meta.get("HTTP_X_NONCE"),
            signature=meta.get("HTTP_X_SIGNATURE"),
            method=request.method,
            path=request._request.get_full_path(),
            body=request._request.body,
        )
        return PartnerPrincipal(partner), partner

    def authenticate_header(self, request):
        return 'HMAC-SHA256 realm="partner"'


class PartnerSignatureScheme(OpenApiAuthenticationExtension):
    target_class = "casino.api.authentication.PartnerSignatureAuthentication"
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


class PlayerTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, fetching the user and its player in one query."""

    def authenticate_credentials(self, key):
        token = Token.objects.select_related("user__player").filter(key=key).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
