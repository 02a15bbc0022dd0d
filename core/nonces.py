"""Signed requests' nonces, each accepted once (API.md: a partner's `X-Nonce` within its 300 s
window), kept in PostgreSQL (`RequestNonce`) where a Redis that lost its data cannot forget them.

Issue #33: with the nonces only in Redis, a signed transfer resent under a new Idempotency-Key
after Redis came back empty moved the money again. Now every signed request's nonce is recorded
here, with no statement more on the money paths:

* a request whose view takes an Idempotency-Key for it (`IDEMPOTENT_POST`) records it in the claim
  of its key (`core_idempotency_claim`), the first statement of its work (core/idempotency.py);
  when that transaction does not commit (a refusal stored apart, a replay, a conflict, a database
  error), in a statement of its own before the answer;
* every other signed request, at authentication, in a statement of its own;
* one refused before its work ran (invalid input) is recorded when its answer leaves
  (`core.middleware.NonceMiddleware`), so that its nonce is spent too.

Redis still refuses most replays first (accounts/partners.py, in the round trip it makes anyway);
the database is the authority. Nonces are purged once their requests' timestamps are stale.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.db import DatabaseError, connection
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import SignatureInvalid
from core.models import RequestNonce

logger = logging.getLogger(__name__)
# A view attribute: its POSTs claim the request's nonce with their Idempotency-Key (core/idempotency.py).
IDEMPOTENT_POST = "idempotency_claims_nonce"
NONCE_CLAIM = "SELECT core_nonce_claim(%s)"
_ATTRIBUTE = "signed_nonce"


@dataclass
class SignedNonce:
    """A signed request's nonce, to be recorded once (`claimed` once it is)."""

    key: str  # "<signer>:<nonce>"
    claimed: bool = False

    @property
    def pending(self) -> str | None:
        """The key to record with the request's work, or None once it is recorded."""
        return None if self.claimed else self.key


def nonce_expect(request, *, signer: str, nonce: str) -> SignedNonce:
    """A signed request (its signature checked) names this nonce: remembered on the request."""
    found = SignedNonce(f"{signer}:{nonce}")
    setattr(getattr(request, "_request", request), _ATTRIBUTE, found)
    return found


def nonce_of(request) -> SignedNonce | None:
    return getattr(getattr(request, "_request", request), _ATTRIBUTE, None)


def nonce_used_error() -> SignatureInvalid:
    return SignatureInvalid(gettext("this nonce was already used"))


def nonce_claim(found: SignedNonce) -> None:
    """Record the nonce in a statement of its own (committed at once outside a transaction), or
    `signature_invalid` if it was used already."""
    if found.claimed:
        return
    with connection.cursor() as cursor:
        cursor.execute(NONCE_CLAIM, [found.key])
        first = bool(cursor.fetchone()[0])
    found.claimed = True
    if not first:
        raise nonce_used_error()


def nonce_claim_after_failure(found: SignedNonce | None) -> None:
    """After a transaction that carried the nonce failed (a database error): record it now if the
    database answers, so that the failed request cannot be replayed; never raises."""
    if found is None or found.claimed or connection.in_atomic_block:
        return
    try:
        nonce_claim(found)
    except (SignatureInvalid, DatabaseError) as exc:
        logger.warning("nonce %s not recorded after a failed request: %s", found.key, exc.__class__.__name__)


def nonces_purge(*, older_than: timedelta) -> int:
    """Nonces whose requests' timestamps are stale can never be replayed: forget them."""
    deleted, _ = RequestNonce.objects.filter(created_at__lt=timezone.now() - older_than).delete()
    return deleted
