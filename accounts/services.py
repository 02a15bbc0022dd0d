"""Writes of the accounts app: players, partners and staff roles."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from django.conf import settings
from django.contrib.auth import authenticate, login
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import Partner, Player, User
from accounts.origins import origins_check
from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.tokens import token_issue
from accounts.usernames import username_is_valid, username_look_alikes, username_normalize
from core import clock
from core.actors import Actor, ActorType
from core.attempts import attempt_failed, attempts_clear, attempts_exhausted, password_check_allowed
from core.audit import audit_record
from core.client_address import client_address
from core.errors import InvalidCredentials, InvalidInput, TooManyAttempts, UsernameTaken
from core.outbound import outbound_url_validate
from ledger.money import format_money
from ledger.selectors import player_wallet_summary
from ledger.services import outside_account, player_accounts_open, wallet_deposit
from protection.services import protection_check_deposit, session_start

# app_label.codename per role; auditors get every "view" permission of the audited apps. Nobody
# changes a player (its page is read-only): identity changes and adjustments are maker-checker,
# "change" of those being the checker's approval or rejection.
ROLE_PERMISSIONS: dict[str, set[str]] = {
    OPERATOR: {
        "casino.view_table",
        "casino.change_table",
        "casino.view_tablechange",
        "casino.add_tablechange",
        "casino.change_tablechange",
        "casino.view_round",
        "casino.view_seedpair",
        "casino.view_webhookdelivery",
        "casino.view_revenue",
        "casino.view_walletcall",
        "accounts.view_player",
        "accounts.view_partner",
        "accounts.view_playeridentitychange",
        "accounts.add_playeridentitychange",
        "accounts.change_playeridentitychange",
        "accounts.view_partneroriginchange",
        "accounts.add_partneroriginchange",
        "accounts.change_partneroriginchange",
        "accounts.view_gamesession",
        "accounts.change_gamesession",
        "accounts.view_credentialreset",
        "accounts.add_credentialreset",
        "accounts.change_credentialreset",
        "ledger.view_account",
        "ledger.view_journalentry",
        "ledger.view_posting",
        "ledger.view_entryseal",
        "ledger.view_verificationrun",
        "ledger.view_adjustment",
        "ledger.add_adjustment",
        "ledger.change_adjustment",
        "protection.view_playerlimit",
        "protection.view_exclusion",
        "protection.view_realitycheck",
        "core.view_auditevent",
    },
    SUPPORT: {
        "accounts.view_player",
        "casino.view_table",
        "casino.view_round",
        "ledger.view_account",
        "ledger.view_journalentry",
        "ledger.view_posting",
        "ledger.view_adjustment",
        "ledger.add_adjustment",
        "accounts.view_playeridentitychange",
        "accounts.add_playeridentitychange",
        "accounts.view_gamesession",
        "protection.view_playerlimit",
        "protection.view_exclusion",
    },
}
AUDITED_APPS = ("accounts", "casino", "ledger", "protection", "core", "admin")


def roles_sync() -> dict[str, int]:
    """Create the staff groups and grant exactly their permissions (idempotent)."""
    counts = {}
    view_all = set(
        Permission.objects.filter(content_type__app_label__in=AUDITED_APPS, codename__startswith="view_").values_list(
            "content_type__app_label", "codename"
        )
    )
    wanted = {**ROLE_PERMISSIONS, AUDITOR: {f"{app}.{codename}" for app, codename in view_all}}
    with transaction.atomic():
        for role, names in wanted.items():
            group, _ = Group.objects.get_or_create(name=role)
            permissions = [
                p
                for p in Permission.objects.filter(content_type__app_label__in=AUDITED_APPS).select_related(
                    "content_type"
                )
                if f"{p.content_type.app_label}.{p.codename}" in names
            ]
            group.permissions.set(permissions)
            counts[role] = len(permissions)
    return counts


def player_create(
    *,
    username: str,
    password: str | None,
    email: str = "",
    currency: str = "EUR",
    partner: Partner | None = None,
    external_id: str = "",
) -> Player:
    """A player with its user and its wallet accounts."""
    with transaction.atomic():
        user = User(username=username, email=email)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save()
        player = Player.objects.create(user=user, currency=currency, partner=partner, external_id=external_id)
        player_accounts_open(player=player)
    return player


def partner_create(
    *, name: str, webhook_url: str = "", wallet_url: str = "", origins: list[str] | tuple[str, ...] = ()
) -> tuple[Partner, str]:
    """A partner casino with a new key and secret; the secret is returned to be shown once. With a
    `wallet_url`, a seamless-wallet partner (API.md "Seamless wallet"). Both URLs must be ones the
    service may call (core/outbound.py), else `invalid_input`. `origins` are the sites that may
    frame its game sessions (accounts/game_sessions.py checks them)."""
    try:
        outbound_url_validate(webhook_url)
        outbound_url_validate(wallet_url)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    checked = origins_check(list(origins))
    secret = secrets.token_urlsafe(32)
    partner = Partner.objects.create(
        name=name,
        key_id=f"pk_{secrets.token_hex(8)}",
        secret=secret,
        webhook_url=webhook_url,
        wallet_url=wallet_url.rstrip("/"),
        origins=checked,
    )
    audit_record(
        actor_type="system",
        actor_id="partner_create",
        action="partner.created",
        obj_type="partner",
        obj_id=partner.pk,
        webhook_url=webhook_url,
        wallet_url=partner.wallet_url,
        origins=checked,
    )
    return partner, secret


SIGN_IN_FAILURES_ALLOWED = 10  # per address and username, per 15 minutes
SIGN_UPS_ALLOWED = 20  # per address, per 15 minutes


EMAIL_MAX_LENGTH = User._meta.get_field("email").max_length
PASSWORD_MAX_LENGTH = 256  # hashing costs CPU per character: a sign-in is no place for megabytes


def _encodable(text: str) -> bool:
    """Text the database and the password hasher can hold: UTF-8 (no lone surrogate) without NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def _has_control_characters(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def _lock_name(skeleton: str) -> None:
    """Inside the sign-up's transaction: one sign-up per skeleton at a time, so two people cannot
    take look-alike names at once."""
    key = int.from_bytes(hashlib.sha256(f"username\n{skeleton}".encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def player_signup(
    *,
    username: str,
    password: str,
    email: str = "",
    age_confirmed: bool = False,
    terms_accepted: bool = False,
    request: HttpRequest | None = None,
) -> Player:
    """A player signing up on their own (the API and the web form): a valid username, normalised
    (NFKC) and not reading like one taken (accounts/usernames.py), a strong password without
    control characters, an e-mail the account can hold. Sign-ups from one address are counted,
    successful or not, and refused beyond SIGN_UPS_ALLOWED. What the player confirmed (being of
    settings.MINIMUM_AGE, the terms of TERMS_VERSION) is recorded with the moment
    (`_confirmations_record`); the web form requires both, the API takes them when sent."""
    attempts = f"signup:{client_address(request)}"
    if attempts_exhausted(key=attempts, limit=SIGN_UPS_ALLOWED):
        raise TooManyAttempts(gettext("Too many sign-ups from this address. Wait a few minutes and try again."))
    if not password_check_allowed(address=client_address(request)):
        raise TooManyAttempts(gettext("Too many attempts from this address. Wait a minute and try again."))
    attempt_failed(key=attempts)
    username = username_normalize(username) if _encodable(username) else ""
    if not username_is_valid(username):
        raise InvalidInput(gettext("a username is 3 to 150 letters, digits, '.', '_' or '-'"))
    if not password or len(password) > PASSWORD_MAX_LENGTH or not _encodable(password):
        raise InvalidInput(gettext("a password is 1 to %(max)s characters") % {"max": PASSWORD_MAX_LENGTH})
    if _has_control_characters(password):
        raise InvalidInput(gettext("a password cannot hold control characters"))
    if len(email) > EMAIL_MAX_LENGTH or not _encodable(email):
        raise InvalidInput(gettext("an e-mail address is at most %(max)s characters") % {"max": EMAIL_MAX_LENGTH})
    try:
        if email:
            validate_email(email)
        validate_password(password, user=User(username=username, email=email))
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    look_alikes = username_look_alikes(username)
    with transaction.atomic():
        for skeleton in sorted(look_alikes):
            _lock_name(skeleton)
        if User.objects.filter(username_skeleton__in=look_alikes).exists():
            raise UsernameTaken()
        player = player_create(username=username, password=password, email=email)
        confirmed = _confirmations_record(player, age_confirmed=age_confirmed, terms_accepted=terms_accepted)
        audit_record(
            actor_type=ActorType.PLAYER,
            actor_id=player.pk,
            action="player.signed_up",
            obj_type="player",
            obj_id=player.pk,
            **confirmed,
        )
    return player


# The version of the terms of play (web/templates/web/terms.html) a player accepts at sign-up: a new
# text of the terms gets a new version, and each player's record says which one they accepted.
TERMS_VERSION = "2026-12-02"


def _confirmations_record(player: Player, *, age_confirmed: bool, terms_accepted: bool) -> dict:
    """Record on the player what it confirmed at sign-up, with the moment; returns it for the audit."""
    now = clock.now()
    confirmed: dict = {}
    if age_confirmed:
        player.age_confirmed_at, player.age_confirmed_minimum = now, settings.MINIMUM_AGE
        confirmed["age_confirmed_minimum"] = settings.MINIMUM_AGE
    if terms_accepted:
        player.terms_accepted_at, player.terms_version = now, TERMS_VERSION
        confirmed["terms_version"] = TERMS_VERSION
    if confirmed:
        player.save(update_fields=["age_confirmed_at", "age_confirmed_minimum", "terms_accepted_at", "terms_version"])
    return confirmed


def player_authenticate(*, request: HttpRequest, username: str, password: str) -> Player | None:
    """The player with these credentials, or None. The username is read as sign-up stores it
    (NFKC). A login that is not a player's (staff, a superuser, a user without a wallet) gets
    nothing here, as if the password were wrong: the player's doors neither sign staff in nor tell
    that their password is right. Failures are counted per address and username: beyond
    SIGN_IN_FAILURES_ALLOWED in the window every attempt is refused (`TooManyAttempts`), the
    right password too, to slow down guessing."""
    if not _encodable(username) or not _encodable(password) or len(password) > PASSWORD_MAX_LENGTH:
        return None  # no account has such a name or password
    username = username_normalize(username)
    attempts = f"signin:{client_address(request)}:{username.lower()}"
    if attempts_exhausted(key=attempts, limit=SIGN_IN_FAILURES_ALLOWED):
        raise TooManyAttempts(gettext("Too many failed attempts. Wait a few minutes and try again."))
    if not password_check_allowed(address=client_address(request)):
        raise TooManyAttempts(gettext("Too many attempts from this address. Wait a minute and try again."))
    user = authenticate(request, username=username, password=password)  # a failure is audited (signals.py)
    player = getattr(user, "player", None) if user is not None else None
    if user is not None and (player is None or user.is_staff or user.is_superuser):
        audit_record(
            actor_type="anonymous",
            actor_id=username,
            action="sign_in.not_a_player",
            obj_type="user",
            obj_id=user.pk,
            ip=client_address(request),
        )
        player = None
    if player is None or not user.is_active:
        attempt_failed(key=attempts)
        return None
    attempts_clear(key=attempts)
    return player


PASSWORD_CHANGE_FAILURES_ALLOWED = 10  # wrong current passwords per player, per 15 minutes


def player_password_change(*, request: HttpRequest, player: Player, old_password: str, new_password: str) -> None:
    """A signed-in player's new password: the current one must be right (wrong ones are counted per
    player and address, and every check is one of the address's password hashes), the new one
    passes every validator of AUTH_PASSWORD_VALIDATORS and is not the current one. Every token of
    the player ends (accounts/signals.py) and so does every other session (the caller keeps its
    own: `update_session_auth_hash`, the API's answer gives a token caller a new token)."""
    user = player.user
    attempts = f"password-change:{client_address(request)}:{user.pk}"
    if attempts_exhausted(key=attempts, limit=PASSWORD_CHANGE_FAILURES_ALLOWED) or not password_check_allowed(
        address=client_address(request)
    ):
        raise TooManyAttempts(gettext("Too many attempts. Wait a few minutes and try again."))
    if not _encodable(old_password) or len(old_password) > PASSWORD_MAX_LENGTH or not user.check_password(old_password):
        attempt_failed(key=attempts)
        raise InvalidCredentials(gettext("the current password is wrong"))
    attempts_clear(key=attempts)
    if not new_password or len(new_password) > PASSWORD_MAX_LENGTH or not _encodable(new_password):
        raise InvalidInput(gettext("a password is 1 to %(max)s characters") % {"max": PASSWORD_MAX_LENGTH})
    if _has_control_characters(new_password):
        raise InvalidInput(gettext("a password cannot hold control characters"))
    if new_password == old_password:
        raise InvalidInput(gettext("the new password is the current one"))
    try:
        validate_password(new_password, user=user)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    user.set_password(new_password)
    user.save(update_fields=["password"])
    audit_record(
        actor_type=ActorType.PLAYER,
        actor_id=player.pk,
        action="player.password_changed",
        obj_type="player",
        obj_id=player.pk,
        ip=client_address(request),
    )


def player_token_sign_in(*, request: HttpRequest, username: str, password: str) -> str:
    """Sign in for the token API: a new token (accounts/tokens.py); it also starts a new
    reality-check session."""
    player = player_authenticate(request=request, username=username, password=password)
    if player is None:
        raise InvalidCredentials()
    key = token_issue(user=player.user)
    session_start(player=player)
    return key


def player_session_sign_in(*, request: HttpRequest, username: str, password: str) -> Player:
    """Sign in with the session cookie (the web front end and its API calls); players only."""
    player = player_authenticate(request=request, username=username, password=password)
    if player is None:
        raise InvalidCredentials()
    login(request, player.user)
    session_start(player=player)
    return player


PLAY_MONEY_TOP_UPS = (10_000, 50_000, 100_000)  # the amounts a player may add in play-money mode
PLAY_MONEY_CEILING = 1_000_000  # a top-up never lifts the balance above this


class PlayMoneyOff(InvalidInput):
    code = "play_money_off"
    status = 403
    title = gettext_lazy("This service plays with real money: top-ups come from the casino.")


def player_play_money_top_up(*, player: Player, amount: int, idempotency_key: str) -> int:
    """Play money into the wallet (demo mode only): one of the offered amounts, never above the
    ceiling, and refused like a real deposit by a time-out, a self-exclusion or a deposit limit."""
    if not settings.PLAY_MONEY or player.is_seamless:  # a seamless player's money is its partner's
        raise PlayMoneyOff()
    if amount not in PLAY_MONEY_TOP_UPS or type(amount) is not int:
        raise InvalidInput(gettext("a top-up is one of the offered amounts"))
    with transaction.atomic():
        protection_check_deposit(player=player, amount=amount, source=outside_account(currency=player.currency))
        balance = player_wallet_summary(player=player)["balance"]
        if balance + amount > PLAY_MONEY_CEILING:
            ceiling = format_money(PLAY_MONEY_CEILING, player.currency)
            raise InvalidInput(
                gettext("play money tops up to at most %(ceiling)s; play some of it first") % {"ceiling": ceiling}
            )
        wallet_deposit(
            player=player,
            amount=amount,
            idempotency_key=idempotency_key,
            actor=Actor.player(player),
            reason="play money top-up",
        )
        audit_record(
            actor_type=ActorType.PLAYER,
            actor_id=player.pk,
            action="wallet.play_money_top_up",
            obj_type="player",
            obj_id=player.pk,
            amount=amount,
        )
    return amount


def staff_totp_enroll(*, username: str, replace: bool = False):
    """A confirmed TOTP device for a staff member (their second factor in the back office).
    An existing device is kept unless `replace` (a lost phone): then every old one is deleted."""
    user = User.objects.filter(username=username, is_staff=True).first()
    if user is None:
        raise InvalidInput(gettext("no staff user %(name)r") % {"name": username})
    with transaction.atomic():
        existing = TOTPDevice.objects.filter(user=user, confirmed=True).first()
        if existing is not None and not replace:
            return existing, False
        TOTPDevice.objects.filter(user=user).delete()
        device = TOTPDevice.objects.create(user=user, name="authenticator app", confirmed=True)
        audit_record(
            actor_type="system",
            actor_id="staff_totp",
            action="staff.totp_enrolled",
            obj_type="user",
            obj_id=user.pk,
            replaced=existing is not None,
        )
    return device, True


def player_language_set(*, player: Player, language: str) -> None:
    """Save the player's language, one of settings.LANGUAGES."""
    if language not in dict(settings.LANGUAGES):
        raise InvalidInput(gettext("unknown language %(code)r") % {"code": language})
    if player.language != language:
        player.language = language
        player.save(update_fields=["language"])
