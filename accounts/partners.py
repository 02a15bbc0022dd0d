"""Partner casinos: signed requests (with replay protection), their players, their transfers."""

from __future__ import annotations

import hmac
import re
import time
from datetime import timedelta
from typing import NamedTuple

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from accounts import sql
from accounts.auth_cache import auth_current, auth_kept, auth_read, partner_name, partner_player_name
from accounts.models import Partner, Player, Transfer, TransferDirection
from accounts.services import player_create
from core.actors import Actor, ActorType
from core.audit import audit_record
from core.cache import cache_add_shared, cache_versions_and_add_shared
from core.errors import (
    DuplicateReference,
    InvalidInput,
    NotATransferWallet,
    NotFound,
    PlayerCurrencyMismatch,
    SignatureInvalid,
)
from core.nonces import nonces_purge
from core.outbound import request_signature  # the one recipe, for requests both ways
from ledger.money import CURRENCIES
from ledger.services import partner_account_open, partner_transfer_post
from protection.services import protection_check_deposit

CLOCK_SKEW_S = 300
# Each header is checked for its form before it is used: a header is any text a client sends.
KEY_PATTERN = re.compile(r"\A[A-Za-z0-9_-]{1,64}\Z")
TIMESTAMP_PATTERN = re.compile(r"\A[0-9]{1,12}\Z")  # digits only: no sign, spaces or underscores
NONCE_PATTERN = re.compile(r"\A[A-Za-z0-9_-]{8,64}\Z")
SIGNATURE_PATTERN = re.compile(r"\A[0-9A-Fa-f]{64}\Z")
EXTERNAL_ID_PATTERN = re.compile(r"\A[A-Za-z0-9_.:@-]{1,128}\Z")


class SignedCall(NamedTuple):
    partner: Partner
    player: Player | None  # the partner's player the request is for, when it named one that exists


def partner_authenticate(
    *,
    key_id: str | None,
    timestamp: str | None,
    nonce: str | None,
    signature: str | None,
    method: str,
    path: str,
    body: bytes,
    external_id: str | None = None,
) -> SignedCall:
    """The partner that signed this request, or `signature_invalid` (401) for an unknown key, a
    wrong signature, a timestamp more than 300 s off, or a nonce this key already used; with the
    partner's player `external_id` (if it exists), read in the same statement as the partner."""
    if not (key_id and timestamp and nonce and signature):
        raise SignatureInvalid(gettext("X-Partner-Key, X-Timestamp, X-Nonce and X-Signature are all required"))
    if not KEY_PATTERN.match(key_id):
        raise SignatureInvalid(gettext("X-Partner-Key is the key id the partner was given"))
    if not NONCE_PATTERN.match(nonce):
        raise SignatureInvalid(gettext("X-Nonce is 8 to 64 characters of [A-Za-z0-9_-]"))
    if not TIMESTAMP_PATTERN.match(timestamp):
        raise SignatureInvalid(gettext("X-Timestamp is a Unix time in seconds"))
    if not SIGNATURE_PATTERN.match(signature):
        raise SignatureInvalid(gettext("X-Signature is 64 hexadecimal digits"))
    if abs(time.time() - int(timestamp)) > CLOCK_SKEW_S:
        raise SignatureInvalid(gettext("X-Timestamp is more than 300 seconds away from the server's clock"))
    found, nonce_taken_for = _partner_and_player(key_id, external_id, nonce)
    partner, player = found if found is not None else (None, None)
    expected = request_signature(
        secret=partner.secret if partner else "no-such-partner",
        timestamp=timestamp,
        nonce=nonce,
        method=method,
        path=path,
        body=body,
    )
    if not hmac.compare_digest(expected, signature.lower()) or partner is None:
        if nonce_taken_for is True:  # taken with the check of what was remembered: a forgery leaves no trace
            cache.delete(_nonce_key(found[0].pk, nonce))
        raise SignatureInvalid(gettext("the signature does not match"))
    first_use = nonce_taken_for if nonce_taken_for is not None else _nonce_first_use(partner, nonce)
    if not first_use:
        raise SignatureInvalid(gettext("this nonce was already used"))
    return SignedCall(partner, player)


def _partner_and_player(
    key_id: str, external_id: str | None, nonce: str
) -> tuple[tuple[Partner, Player | None] | None, bool | None]:
    """The partner and its player, as `sql.partner_and_player` reads them, remembered for a few
    seconds (accounts/auth_cache.py), and whether the request's nonce was recorded as used for the
    first time (None: not looked at here). While they are remembered, one Redis round trip both
    checks that neither changed and records the nonce (SET NX), which the caller takes back if the
    signature turns out wrong. A player that does not exist is remembered so too: creating it
    forgets that."""
    if external_id is not None and not EXTERNAL_ID_PATTERN.match(external_id):
        return sql.partner_and_player(key_id=key_id, external_id=external_id), None  # no such player: not remembered
    names = [partner_name(key_id), partner_player_name(key_id, external_id or "")]
    key = "\n".join(names)
    kept = auth_kept(key)
    if kept is not None:
        partner_id = kept[1][0]  # the row's first column: the partner's id
        current, first_use = cache_versions_and_add_shared(
            cache, names, _nonce_key(partner_id, nonce), 1, timeout=NONCE_KEEP_S
        )
        row = auth_current(kept, current)
        if row is not None:
            return sql.partner_and_player_from_row(row), first_use
        if first_use:  # changed since: read again below, and its nonce is checked as any other
            cache.delete(_nonce_key(partner_id, nonce))
    row = auth_read(
        key,
        names,
        read=lambda: sql.partner_and_player_row(key_id=key_id, external_id=external_id),
        value=lambda row: row,
    )
    return (None if row is None else sql.partner_and_player_from_row(row)), None


NONCE_KEEP_S = 2 * CLOCK_SKEW_S + 60  # a nonce older than this comes with a stale timestamp anyway


def _nonce_key(partner_id: int, nonce: str) -> str:
    return f"partner-nonce:{partner_id}:{nonce}"


def _nonce_first_use(partner: Partner, nonce: str) -> bool:
    """The nonce taken in Redis (one SET NX): False if this partner used it already. Redis refuses
    most replays here, early; PostgreSQL, where a Redis that lost its data cannot forget a nonce,
    is the authority (core/nonces.py, `PartnerSignatureAuthentication`), so a Redis that does not
    answer passes the nonce on to it."""
    first = cache_add_shared(cache, _nonce_key(partner.pk, nonce), 1, timeout=NONCE_KEEP_S)
    return first is not False


def partner_nonces_purge() -> int:
    """Nonces older than twice the clock window can never be replayed: their timestamps are stale."""
    return nonces_purge(older_than=timedelta(seconds=NONCE_KEEP_S))


def partner_player_username(*, partner: Partner, external_id: str) -> str:
    """The login name of a partner's player (who has no password: the partner acts for it)."""
    return f"p{partner.pk}:{external_id}"[:150]


def partner_player_get(*, partner: Partner, external_id: str) -> Player:
    player = Player.objects.select_related("user").filter(partner=partner, external_id=external_id).first()
    if player is None:
        raise NotFound(gettext("no such player"))
    return player


def partner_player_upsert(*, partner: Partner, external_id: str, currency: str | None) -> tuple[Player, bool]:
    """Create the partner's player if new (its wallet in `currency`); return it either way (and
    whether it was created)."""
    if not EXTERNAL_ID_PATTERN.match(external_id):
        raise InvalidInput(gettext("external_id is 1 to 128 characters of [A-Za-z0-9_.:@-]"))
    existing = Player.objects.filter(partner=partner, external_id=external_id).first()
    if existing is not None:
        if currency is not None and currency != existing.currency:
            raise PlayerCurrencyMismatch(
                gettext("the player's wallet is in %(currency)s") % {"currency": existing.currency}
            )
        return existing, False
    if currency not in CURRENCIES:
        raise InvalidInput(gettext("currency is an ISO 4217 code with cents, such as EUR"))
    try:
        with transaction.atomic():
            player = player_create(
                username=partner_player_username(partner=partner, external_id=external_id),
                password=None,
                currency=currency,
                partner=partner,
                external_id=external_id,
            )
            audit_record(
                actor_type=ActorType.PARTNER,
                actor_id=partner.pk,
                action="player.created",
                obj_type="player",
                obj_id=player.pk,
                external_id=external_id,
            )
    except IntegrityError:  # created concurrently by the partner's other request
        return Player.objects.get(partner=partner, external_id=external_id), False
    return player, True


def partner_transfer(
    *, partner: Partner, player: Player, direction: TransferDirection, amount: int, reference: str
) -> Transfer:
    """Move money between the partner's settlement account and the player's wallet (`amount`
    positive minor units; `reference` the partner's, printable). A seamless partner keeps its
    players' money itself: nothing is ever transferred for it."""
    if partner.is_seamless:
        raise NotATransferWallet(gettext("this partner's players play from the partner's own wallet"))
    try:
        return _transfer(partner=partner, player=player, direction=direction, amount=amount, reference=reference)
    except IntegrityError as exc:  # the same reference by a concurrent request: the constraint decides
        if "transfer_reference_once_per_partner" not in str(exc):
            raise
        raise _duplicate(partner=partner, reference=reference) from None


def _duplicate(*, partner: Partner, reference: str) -> DuplicateReference:
    first = Transfer.objects.filter(partner=partner, reference=reference).values_list("id", flat=True).first()
    return DuplicateReference(
        gettext("the reference %(reference)s was already used by transfer %(transfer)s")
        % {"reference": reference, "transfer": first}
    )


def _transfer(*, partner: Partner, player: Player, direction: TransferDirection, amount: int, reference: str):
    with transaction.atomic():
        if Transfer.objects.filter(partner=partner, reference=reference).exists():
            raise _duplicate(partner=partner, reference=reference)
        if direction is TransferDirection.IN:
            source = partner_account_open(partner=partner, currency=player.currency)
            protection_check_deposit(player=player, amount=amount, source=source)
        transfer = Transfer(
            partner=partner,
            player=player,
            direction=direction,
            amount=amount,
            currency=player.currency,
            reference=reference,
        )
        transfer.entry = partner_transfer_post(
            partner=partner,
            player=player,
            amount=amount,
            into_wallet=direction is TransferDirection.IN,
            idempotency_key=f"transfer:{transfer.id}",
            actor=Actor.partner(partner),
            reason=f"partner reference {reference}",
            reference_id=str(transfer.id),
        )
        transfer.save(force_insert=True)
        audit_record(
            actor_type=ActorType.PARTNER,
            actor_id=partner.pk,
            action=f"transfer.{direction.value}",
            obj_type="transfer",
            obj_id=transfer.id,
            amount=amount,
            reference=reference,
        )
    return transfer
