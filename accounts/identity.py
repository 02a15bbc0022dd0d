"""Changes of whose a player is: its partner and the partner's id of it, and its wallet's currency.

Nobody edits these in the back office (its player pages are read-only). A change a business needs
(a partner's new ids, a player moving between partners, a wallet opened in the wrong currency) is
proposed by one staff member and approved by another, as adjustments are (four eyes), and each
step is audited. The login of a player (`Player.user`) never changes: another login is another
player.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import IdentityChangeStatus, Partner, Player, PlayerIdentityChange, User
from accounts.partners import EXTERNAL_ID_PATTERN, partner_player_username
from core.actors import ActorType
from core.audit import audit_record
from core.errors import InvalidInput, StateConflict
from ledger.money import CURRENCIES
from ledger.selectors import player_money_ever_moved
from ledger.services import player_accounts_open


def _identity(player: Player) -> dict:
    return {"partner": player.partner_id, "external_id": player.external_id, "currency": player.currency}


def player_identity_change_check(*, player: Player, partner: Partner | None, external_id: str, currency: str) -> None:
    """Refuse (`invalid_input`) an identity the player cannot take: the same as now, a partner
    without an id for the player (or an id without a partner), an id the partner's other player
    has, a currency without cents, a partner's player leaving its partner (it has no password of
    its own: nobody could reach the wallet), a new currency for a wallet that ever moved money or
    has limits (amounts in the old currency)."""
    if {"partner": partner.pk if partner else None, "external_id": external_id, "currency": currency} == _identity(
        player
    ):
        raise InvalidInput(gettext("this is the player's identity already"))
    if partner is None:
        if external_id:
            raise InvalidInput(gettext("an external id belongs to a partner: choose the partner"))
        if player.partner_id is not None and not player.user.has_usable_password():
            raise InvalidInput(gettext("a partner's player has no password of its own: it cannot leave its partner"))
    else:
        if not partner.is_active:
            raise InvalidInput(gettext("the partner is not active"))
        if not EXTERNAL_ID_PATTERN.match(external_id):
            raise InvalidInput(gettext("external_id is 1 to 128 characters of [A-Za-z0-9_.:@-]"))
        if Player.objects.filter(partner=partner, external_id=external_id).exclude(pk=player.pk).exists():
            raise InvalidInput(gettext("the partner has another player with this external id"))
    if currency != player.currency:
        if currency not in CURRENCIES:
            raise InvalidInput(gettext("currency is an ISO 4217 code with cents, such as EUR"))
        if player_money_ever_moved(player=player) or player.limits.exists():
            raise InvalidInput(
                gettext("only a wallet that never moved money and has no limits can change its currency")
            )


def player_identity_change_propose(
    *, player: Player, partner: Partner | None, external_id: str, currency: str, reason: str, proposed_by: User
) -> PlayerIdentityChange:
    """Propose the player's new identity; another staff member approves or rejects it."""
    if not reason.strip():
        raise InvalidInput(gettext("an identity change needs a reason"))
    player_identity_change_check(player=player, partner=partner, external_id=external_id, currency=currency)
    with transaction.atomic():
        change = PlayerIdentityChange.objects.create(
            player=player,
            old_partner=player.partner,
            old_external_id=player.external_id,
            old_currency=player.currency,
            partner=partner,
            external_id=external_id,
            currency=currency,
            reason=reason.strip(),
            proposed_by=proposed_by,
        )
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=proposed_by.pk,
            action="player.identity_change_proposed",
            obj_type="player",
            obj_id=player.pk,
            change=change.pk,
            before=_identity(player),
            after={"partner": partner.pk if partner else None, "external_id": external_id, "currency": currency},
        )
    return change


def _decidable(change: PlayerIdentityChange, staff: User) -> PlayerIdentityChange:
    change = PlayerIdentityChange.objects.select_for_update().get(pk=change.pk)
    if change.status != IdentityChangeStatus.PROPOSED:
        raise StateConflict(gettext("this identity change was already decided"))
    if change.proposed_by_id == staff.pk:
        raise StateConflict(gettext("a different staff member must decide an identity change (four eyes)"))
    return change


def player_identity_change_approve(*, change: PlayerIdentityChange, approved_by: User) -> PlayerIdentityChange:
    """Apply the change, if the player still has the identity it was proposed for and may take
    the new one; a partner's player's login name follows its new partner and id."""
    with transaction.atomic():
        change = _decidable(change, approved_by)
        players = Player.objects.select_for_update(of=("self",)).select_related("user", "partner")
        player = players.get(pk=change.player_id)
        before = _identity(player)
        if before != {
            "partner": change.old_partner_id,
            "external_id": change.old_external_id,
            "currency": change.old_currency,
        }:
            raise StateConflict(gettext("the player's identity changed since this was proposed: propose again"))
        player_identity_change_check(
            player=player, partner=change.partner, external_id=change.external_id, currency=change.currency
        )
        user = player.user
        renamed = (
            player.partner is not None
            and change.partner is not None
            and user.username == (partner_player_username(partner=player.partner, external_id=player.external_id))
        )
        if renamed:
            user.username = partner_player_username(partner=change.partner, external_id=change.external_id)
        player.partner, player.external_id, player.currency = change.partner, change.external_id, change.currency
        try:
            with transaction.atomic():
                if renamed:
                    user.save(update_fields=["username"])
                player.save(update_fields=["partner", "external_id", "currency"])
        except IntegrityError:
            raise StateConflict(gettext("another player took this identity meanwhile")) from None
        player_accounts_open(player=player)
        change.status, change.decided_by, change.decided_at = IdentityChangeStatus.APPROVED, approved_by, timezone.now()
        change.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=approved_by.pk,
            action="player.identity_changed",
            obj_type="player",
            obj_id=player.pk,
            change=change.pk,
            proposed_by=change.proposed_by_id,
            before=before,
            after=_identity(player),
        )
    return change


def player_identity_change_reject(*, change: PlayerIdentityChange, rejected_by: User) -> PlayerIdentityChange:
    with transaction.atomic():
        change = _decidable(change, rejected_by)
        change.status, change.decided_by, change.decided_at = IdentityChangeStatus.REJECTED, rejected_by, timezone.now()
        change.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=rejected_by.pk,
            action="player.identity_change_rejected",
            obj_type="player",
            obj_id=change.player_id,
            change=change.pk,
        )
    return change
