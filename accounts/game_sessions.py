"""Game sessions: the table opened on a partner's site for one of its players (API.md "Game launch").

The life of a session:

* The partner asks for it (`game_session_create`, or `game_session_demo_create` for a play-money
  table with a player of its own). The answer's URL carries a launch token that opens the session
  once, within LAUNCH_TTL; only its SHA-256 is kept.
* The first opening of the URL (`game_session_open`) claims the token in one conditional UPDATE,
  so two openings can never both show the table, and makes the session's credential: a second
  random token, which the page's scripts keep in memory and send as `Authorization: GameSession
  <token>`. No cookie carries it: the page works in a cross-site frame of a browser that blocks
  third-party cookies (and their storage), and no request is authenticated by something the
  browser adds on its own, so cross-site request forgery has nothing to ride on.
* Every API call of the page is checked here (`game_session_authenticate`): the session must be
  open, seen within IDLE_LIMIT, and its player not excluded. It can act only as that player's web
  front end does (accounts.api.PlayerScoped), never as the partner.
* It ends at the partner's DELETE, by an operator, by the player, when the player is excluded
  (`exclusion_started`) or after IDLE_LIMIT without a request (noticed by the next request, or by
  `game_sessions_end_idle`, which beat runs).

The pages themselves (web/game.py) are the shells of the table, lobby and history; who may frame
them is the partner's `origins` (accounts/origins.py), changed by four eyes.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.models import (
    GameSession,
    GameSessionEnd,
    IdentityChangeStatus,
    Partner,
    PartnerOriginChange,
    Player,
    User,
)
from accounts.origins import origins_check
from accounts.services import player_create
from core.actors import Actor, ActorType
from core.audit import audit_record
from core.errors import InvalidInput, NotFound, ServiceError, StateConflict
from ledger.money import CURRENCIES
from ledger.services import wallet_deposit

LAUNCH_TTL = timedelta(seconds=60)
IDLE_LIMIT = timedelta(minutes=30)
TOUCH_EVERY = timedelta(seconds=30)  # how stale last_seen_at may be: the idle limit is this precise
TOKEN_PATTERN = re.compile(r"\A[A-Za-z0-9_-]{43}\Z")  # secrets.token_urlsafe(32); anything else is no token
# API.md's language codes and Django's.
LANGUAGES = {"en": "en", "pt-BR": "pt-br", "es": "es"}
DEMO_BALANCE = 100_000  # a demo table's play money, in minor units (1,000.00)


class GameSessionEnded(ServiceError):
    """A request of a game session that ended (or never existed): the page says so and stops."""

    code = "game_session_ended"
    status = 401
    title = gettext_lazy("This game session has ended.")


class LaunchGone(ServiceError):
    """A launch URL opened a second time, too late, or never issued."""

    code = "launch_gone"
    status = 410
    title = gettext_lazy("This game link has expired or was already used.")

    def __init__(self, session: GameSession | None = None) -> None:
        super().__init__()
        self.session = session


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def lobby_url_check(url: str) -> str:
    """Where "back to the casino" leads: an https URL (http with OUTBOUND_ALLOW_PRIVATE)."""
    if url == "":
        return ""
    parts = urlsplit(url)
    schemes = ("https", "http") if settings.OUTBOUND_ALLOW_PRIVATE else ("https",)
    if len(url) > 2000 or parts.scheme.lower() not in schemes or not parts.hostname or "@" in parts.netloc:
        raise InvalidInput(gettext("lobby_url is an https URL"))
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise InvalidInput(gettext("lobby_url is an https URL"))
    return url


def language_code(language: str | None) -> str:
    """Django's code of an API.md language (`pt-BR`), or `invalid_input`."""
    if language not in LANGUAGES:
        raise InvalidInput(gettext("language is one of en, pt-BR, es"))
    return LANGUAGES[language]


# --- Creating and opening -------------------------------------------------------------------------------


def _session_new(
    *, partner: Partner, player: Player, demo: bool, table_id: int | None, language: str, lobby_url: str
) -> tuple[GameSession, str]:
    launch = secrets.token_urlsafe(32)
    session = GameSession.objects.create(
        partner=partner,
        player=player,
        demo=demo,
        table_id=table_id,
        language=language,
        lobby_url=lobby_url_check(lobby_url),
        launch_digest=_digest(launch),
        launch_expires_at=timezone.now() + LAUNCH_TTL,
    )
    audit_record(
        actor_type=ActorType.PARTNER,
        actor_id=partner.pk,
        action="game_session.created",
        obj_type="game_session",
        obj_id=session.pk,
        player=player.pk,
        demo=demo,
        table=table_id,
    )
    return session, launch


def game_session_create(
    *, partner: Partner, player: Player, table_id: int | None = None, language: str | None = None, lobby_url: str = ""
) -> tuple[GameSession, str]:
    """A game session of the partner's player (its table checked by the caller) and the launch
    token of its URL, returned once."""
    if player.partner_id != partner.pk:
        raise InvalidInput(gettext("not this partner's player"))
    code = language_code(language) if language is not None else (player.language or "")
    with transaction.atomic():
        return _session_new(
            partner=partner, player=player, demo=False, table_id=table_id, language=code, lobby_url=lobby_url
        )


def game_session_demo_create(
    *, partner: Partner, currency: str, table_id: int | None = None, language: str | None = None, lobby_url: str = ""
) -> tuple[GameSession, str]:
    """A demo session: a play-money player of its own (no partner, so never in the partner's books,
    reports, reconciliation or webhooks, and no wallet call), with DEMO_BALANCE to play."""
    code = language_code(language) if language is not None else ""
    lobby_url_check(lobby_url)
    if currency not in CURRENCIES:
        raise InvalidInput(gettext("currency is an ISO 4217 code with cents, such as EUR"))
    with transaction.atomic():
        player = player_create(username=f"demo-{secrets.token_hex(8)}", password=None, currency=currency)
        player.language = code
        player.save(update_fields=["language"])
        session, launch = _session_new(
            partner=partner, player=player, demo=True, table_id=table_id, language=code, lobby_url=lobby_url
        )
        wallet_deposit(
            player=player,
            amount=DEMO_BALANCE,
            idempotency_key=f"demo:{session.pk}",
            actor=Actor.system("demo_session"),
            reason="play money of a demo session",
        )
    return session, launch


def game_session_open(*, launch_token: str) -> tuple[GameSession, str]:
    """Open the session of this launch token, once, within LAUNCH_TTL: the session and its
    credential. A second opening, a late one or an unknown token is `LaunchGone` (with the session,
    when the token was one, so that its page speaks the player's language)."""
    if not isinstance(launch_token, str) or not TOKEN_PATTERN.match(launch_token):
        raise LaunchGone()
    digest = _digest(launch_token)
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        # One statement claims the link: a second opening, even at the same instant, finds it opened.
        claimed = GameSession.objects.filter(
            launch_digest=digest,
            opened_at__isnull=True,
            ended_at__isnull=True,
            launch_expires_at__gt=now,
            partner__is_active=True,
        ).update(opened_at=now, last_seen_at=now, token_digest=_digest(token))
        session = GameSession.objects.select_related("partner", "player__user").filter(launch_digest=digest).first()
        if not claimed:
            raise LaunchGone(session)
        audit_record(
            actor_type=ActorType.PLAYER,
            actor_id=session.player_id,
            action="game_session.opened",
            obj_type="game_session",
            obj_id=session.pk,
        )
    return session, token


# --- On every request -------------------------------------------------------------------------------------


def game_session_end_reason(session: GameSession, *, now: datetime | None = None) -> str | None:
    """Why the session is over (a GameSessionEnd), or None while it is open."""
    if session.ended_at is not None:
        return session.ended_reason
    if session.opened_at is None:
        return None
    seen = session.last_seen_at or session.opened_at
    if (now or timezone.now()) - seen > IDLE_LIMIT:
        return GameSessionEnd.IDLE
    return None


def game_session_by_credential(*, token: str) -> GameSession | None:
    """The session of this credential, open or ended, without touching it (its page asking whether
    it still runs is no play)."""
    if not TOKEN_PATTERN.match(token):
        return None
    return GameSession.objects.select_related("partner", "player__user").filter(token_digest=_digest(token)).first()


def game_session_authenticate(*, token: str) -> GameSession:
    """The open session of this credential, touched when its last_seen_at is TOUCH_EVERY stale;
    `game_session_ended` for a session that ended (ending it now if it went idle or its player is
    excluded) and for a credential that never was one."""
    if not TOKEN_PATTERN.match(token):
        raise GameSessionEnded(gettext("This game session is unknown: open the game again from the casino."))
    session = (
        GameSession.objects.select_related("player__user", "player__partner", "partner")
        .filter(token_digest=_digest(token))
        .first()
    )
    if session is None:
        raise GameSessionEnded(gettext("This game session is unknown: open the game again from the casino."))
    now = timezone.now()
    reason = game_session_end_reason(session, now=now)
    if reason is not None:
        if session.ended_at is None:
            game_session_end(session=session, reason=reason, actor=Actor.system("game_session"))
        raise GameSessionEnded(game_session_end_text(reason))
    if not (session.player.user.is_active and session.partner.is_active):  # switched off in the back office
        raise GameSessionEnded(game_session_end_text(GameSessionEnd.OPERATOR))
    if now - session.last_seen_at > TOUCH_EVERY:
        GameSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(last_seen_at=now)
        session.last_seen_at = now
    return session


def game_session_end_text(reason: str) -> str:
    """What the page tells the player, in the player's language."""
    return {
        GameSessionEnd.DELETED: gettext("The casino ended this game session."),
        GameSessionEnd.IDLE: gettext("This game session ended after 30 minutes without play."),
        GameSessionEnd.EXCLUDED: gettext("This game session ended: you are taking a break from play."),
        GameSessionEnd.OPERATOR: gettext("This game session was ended by the casino's staff."),
        GameSessionEnd.PLAYER: gettext("You ended this game session."),
    }.get(reason, gettext("This game session has ended."))


# --- Ending ------------------------------------------------------------------------------------------------


def game_session_end(*, session: GameSession, reason: str, actor: Actor) -> bool:
    """End the session now (every later request of it is refused); False if it had ended already.
    An idle session ends at the time it went idle."""
    now = timezone.now()
    ended_at = now
    if reason == GameSessionEnd.IDLE and session.opened_at is not None:
        ended_at = min(now, (session.last_seen_at or session.opened_at) + IDLE_LIMIT)
    with transaction.atomic():
        ended = GameSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(
            ended_at=ended_at, ended_reason=reason, ended_by=actor.scope
        )
        if ended:
            audit_record(
                actor_type=actor.type,
                actor_id=actor.id,
                action="game_session.ended",
                obj_type="game_session",
                obj_id=session.pk,
                reason=reason,
            )
    if ended:
        session.ended_at, session.ended_reason, session.ended_by = ended_at, reason, actor.scope
    return bool(ended)


def game_session_delete(*, partner: Partner, player: Player, session_id: str) -> None:
    """The partner's DELETE: its player's session `session_id` ends (404 for any other)."""
    session = GameSession.objects.filter(pk=_uuid(session_id), partner=partner, player=player, demo=False).first()
    if session is None:
        raise NotFound(gettext("No such game session."))
    game_session_end(session=session, reason=GameSessionEnd.DELETED, actor=Actor.partner(partner))


def game_session_demo_delete(*, partner: Partner, session_id: str) -> None:
    session = GameSession.objects.filter(pk=_uuid(session_id), partner=partner, demo=True).first()
    if session is None:
        raise NotFound(gettext("No such game session."))
    game_session_end(session=session, reason=GameSessionEnd.DELETED, actor=Actor.partner(partner))


def _uuid(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(text))
    except ValueError:
        return None


def game_sessions_end_for_player(*, player: Player, reason: str, actor: Actor) -> int:
    """End every open session of the player (an exclusion)."""
    ended = 0
    for session in GameSession.objects.filter(player=player, ended_at__isnull=True):
        ended += game_session_end(session=session, reason=reason, actor=actor)
    return ended


def game_sessions_end_idle() -> int:
    """Record the end of every session idle past IDLE_LIMIT (they are refused already) and of every
    launch link never opened in time: the admin shows how each ended."""
    now = timezone.now()
    idle = GameSession.objects.filter(ended_at__isnull=True).filter(
        Q(opened_at__isnull=False, last_seen_at__lt=now - IDLE_LIMIT)
        | Q(opened_at__isnull=True, launch_expires_at__lt=now - IDLE_LIMIT)
    )
    ended = 0
    for session in idle[:1000]:
        ended += game_session_end(session=session, reason=GameSessionEnd.IDLE, actor=Actor.system("game_session"))
    return ended


# --- Origins by four eyes -----------------------------------------------------------------------------------


def partner_origin_change_propose(
    *, partner: Partner, origins: list[str], reason: str, proposed_by: User
) -> PartnerOriginChange:
    """Propose the partner's new list of origins; another staff member approves or rejects it."""
    if not reason.strip():
        raise InvalidInput(gettext("a change of origins needs a reason"))
    origins = origins_check(origins)
    if origins == partner.origins:
        raise InvalidInput(gettext("these are the partner's origins already"))
    with transaction.atomic():
        change = PartnerOriginChange.objects.create(
            partner=partner,
            old_origins=partner.origins,
            origins=origins,
            reason=reason.strip(),
            proposed_by=proposed_by,
        )
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=proposed_by.pk,
            action="partner.origins_proposed",
            obj_type="partner",
            obj_id=partner.pk,
            change=change.pk,
            before=partner.origins,
            after=origins,
        )
    return change


def _decidable(change: PartnerOriginChange, staff: User) -> PartnerOriginChange:
    change = PartnerOriginChange.objects.select_for_update().get(pk=change.pk)
    if change.status != IdentityChangeStatus.PROPOSED:
        raise StateConflict(gettext("this change of origins was already decided"))
    if change.proposed_by_id == staff.pk:
        raise StateConflict(gettext("a different staff member must decide a change of origins (four eyes)"))
    return change


def partner_origin_change_approve(*, change: PartnerOriginChange, approved_by: User) -> PartnerOriginChange:
    """Apply the new origins, if the partner still has those the change was proposed for."""
    with transaction.atomic():
        change = _decidable(change, approved_by)
        partner = Partner.objects.select_for_update().get(pk=change.partner_id)
        if partner.origins != change.old_origins:
            raise StateConflict(gettext("the partner's origins changed since this was proposed: propose again"))
        partner.origins = origins_check(change.origins)
        partner.save(update_fields=["origins"])
        change.status, change.decided_by, change.decided_at = IdentityChangeStatus.APPROVED, approved_by, timezone.now()
        change.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=approved_by.pk,
            action="partner.origins_changed",
            obj_type="partner",
            obj_id=partner.pk,
            change=change.pk,
            before=change.old_origins,
            after=partner.origins,
        )
    return change


def partner_origin_change_reject(*, change: PartnerOriginChange, rejected_by: User) -> PartnerOriginChange:
    with transaction.atomic():
        change = _decidable(change, rejected_by)
        change.status, change.decided_by, change.decided_at = IdentityChangeStatus.REJECTED, rejected_by, timezone.now()
        change.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=rejected_by.pk,
            action="partner.origins_rejected",
            obj_type="partner",
            obj_id=change.partner_id,
            change=change.pk,
        )
    return change
