"""Players' API tokens (`Authorization: Token <key>`): a new one at every sign-in, refused once
unused for API_TOKEN_IDLE_MINUTES, ended by sign-out (`DELETE auth/token/`), a password change and
an exclusion.

Two functions hold the life of a token on the request path: `token_authenticate` is the one read
of a token, `tokens_revoke` the one way tokens end (sign-out, password change, exclusion, too many
sign-ins), so whatever remembers what `token_authenticate` answered forgets it in `tokens_revoke`.
A token read from the database (one statement) is remembered for a few seconds
(`accounts/auth_cache.py`): checking it again then costs one Redis round trip. `last_used_at` is
written about once a minute per token, not on every request.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from accounts import sql
from accounts.auth_cache import REMEMBER_S, auth_forget_with_commit, auth_read, auth_remembered, token_name
from accounts.models import ApiToken, User
from core import clock
from core.actors import Actor
from core.audit import audit_record

KEY_PATTERN = re.compile(r"\A[0-9a-f]{64}\Z")  # secrets.token_hex(32); anything else is no token
TOUCH_EVERY = timedelta(minutes=1)  # how stale last_used_at may be: the idle time is this precise
# A token is touched when it is read this stale, so that it never needs a touch while remembered.
TOUCH_WHEN_READ = TOUCH_EVERY - timedelta(seconds=REMEMBER_S)
TOKENS_PER_USER = 20  # the newest are kept; a sign-in beyond this ends the oldest


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def token_idle_limit() -> timedelta:
    return timedelta(minutes=settings.API_TOKEN_IDLE_MINUTES)


def token_issue(*, user: User) -> str:
    """A new token for `user` (already authenticated), returned once: only its digest is kept."""
    key = secrets.token_hex(32)
    now = clock.now()
    with transaction.atomic():
        ApiToken.objects.create(digest=token_digest(key), user=user, created_at=now, last_used_at=now)
        oldest = list(
            ApiToken.objects.filter(user=user)
            .order_by("-created_at", "-pk")
            .values_list("pk", flat=True)[TOKENS_PER_USER:]
        )
        if oldest:
            tokens_revoke(user=user, digests=oldest, actor=Actor.system("sign_in"), reason="too_many_tokens")
    return key


def token_authenticate(*, key: str) -> tuple[User, ApiToken] | None:
    """The user of this token key and the token, or None: no such token, idle too long, or a user
    who may not use the player API (inactive, staff). The token, its user and the user's player
    come in one plain statement, since every API call of a player starts here, and a token found
    good is remembered for REMEMBER_S: until then, one Redis round trip checks that nothing
    changed it (accounts/auth_cache.py)."""
    if not KEY_PATTERN.match(key):
        return None  # never reaches the database: a key is any text a client sends
    digest = token_digest(key)
    name = token_name(digest)
    row = auth_remembered(name, [name])
    if row is None:
        # Only a good token is remembered; it was touched if it had to be, so it needs no touch
        # and cannot go idle while it is remembered (REMEMBER_S is far below both times).
        row = auth_read(name, [name], read=lambda: _token_checked(digest), value=lambda row: row)
        if row is None:
            return None
    token, user, _ = sql.token_user_player_from_row(row)
    return user, token


def _token_checked(digest: str) -> tuple | None:
    """The token's row from the database, if the token is good; touched when it is TOUCH_WHEN_READ stale."""
    row = sql.token_user_player_row(digest=digest)
    if row is None:
        return None
    token, user, _ = sql.token_user_player_from_row(row)
    now = clock.now()
    if now - token.last_used_at > token_idle_limit() or not user.is_active or user.is_staff or user.is_superuser:
        return None
    if now - token.last_used_at > TOUCH_WHEN_READ:
        ApiToken.objects.filter(pk=token.pk, last_used_at=token.last_used_at).update(last_used_at=now)
    return row


def tokens_revoke(*, user: User, actor: Actor, reason: str, digests: list[str] | None = None) -> int:
    """End `user`'s tokens (those of `digests`, or all of them), recorded with `reason`; the
    number ended. Once it commits, no process takes them any more (accounts/auth_cache.py)."""
    tokens = ApiToken.objects.filter(user=user)
    if digests is not None:
        tokens = tokens.filter(pk__in=digests)
    with transaction.atomic():
        ended_digests = list(tokens.values_list("pk", flat=True))
        ended, _ = ApiToken.objects.filter(pk__in=ended_digests).delete()
        if ended:
            audit_record(
                actor_type=actor.type,
                actor_id=actor.id,
                action="tokens.revoked",
                obj_type="user",
                obj_id=user.pk,
                count=ended,
                reason=reason,
            )
            tokens_forget(digests=ended_digests)
    return ended


def tokens_forget(*, digests: list[str]) -> None:
    """What any process remembers of these tokens is out of date (now, and again after the commit)."""
    auth_forget_with_commit([token_name(digest) for digest in digests], what=f"{len(digests)} ended tokens")


def tokens_purge_idle() -> int:
    """Delete the tokens idle beyond the limit (refused already; this keeps the table small)."""
    deleted, _ = ApiToken.objects.filter(last_used_at__lt=clock.now() - token_idle_limit()).delete()
    return deleted
