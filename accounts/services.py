"""Writes of the accounts app: players, partners and staff roles."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Partner, Player, User
from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from core.attempts import attempt_failed, attempts_clear, attempts_exhausted
from core.audit import audit_record
from core.errors import InvalidInput, TooManyAttempts, UsernameTaken
from core.outbound import outbound_url_validate
from ledger.services import player_accounts_open

# app_label.codename per role; auditors get every "view" permission of the audited apps.
ROLE_PERMISSIONS: dict[str, set[str]] = {
    OPERATOR: {
        "casino.view_table", "casino.change_table", "casino.add_table",
        "casino.view_round", "casino.view_seedpair", "casino.view_webhookdelivery",
        "accounts.view_player", "accounts.change_player", "accounts.view_partner",
        "ledger.view_account", "ledger.view_journalentry", "ledger.view_posting", "ledger.view_entryseal",
        "ledger.view_verificationrun", "ledger.view_adjustment", "ledger.add_adjustment", "ledger.change_adjustment",
        "protection.view_playerlimit", "protection.view_exclusion", "protection.view_realitycheck",
        "core.view_auditevent",
    },
    SUPPORT: {
        "accounts.view_player", "casino.view_table", "casino.view_round",
        "ledger.view_account", "ledger.view_journalentry", "ledger.view_posting",
        "ledger.view_adjustment", "ledger.add_adjustment",
        "protection.view_playerlimit", "protection.view_exclusion",
    },
}  # fmt: skip
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


def player_create(*, username: str, password: str | None, email: str = "", currency: str = "EUR",
                  partner: Partner | None = None, external_id: str = "") -> Player:  # fmt: skip
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


def partner_create(*, name: str, webhook_url: str = "") -> tuple[Partner, str]:
    """A partner casino with a new key and secret; the secret is returned to be shown once. The
    webhook URL must be one the service may call (core/outbound.py), else `invalid_input`."""
    try:
        outbound_url_validate(webhook_url)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    secret = secrets.token_urlsafe(32)
    partner = Partner.objects.create(
        name=name, key_id=f"pk_{secrets.token_hex(8)}", secret=secret, webhook_url=webhook_url
    )
    return partner, secret


SIGN_IN_FAILURES_ALLOWED = 10  # per address and username, per 15 minutes
SIGN_UPS_ALLOWED = 20  # per address, per 15 minutes


def _address(request) -> str:
    return (request.META.get("REMOTE_ADDR", "") if request is not None else "")[:45]


def player_signup(*, username: object, password: object, email: object = "", request=None) -> Player:
    """A player signing up on their own: validated username, password and e-mail. Sign-ups from
    one address are counted, successful or not, and refused beyond SIGN_UPS_ALLOWED."""
    attempts = f"signup:{_address(request)}"
    if attempts_exhausted(key=attempts, limit=SIGN_UPS_ALLOWED):
        raise TooManyAttempts(gettext("Too many sign-ups from this address. Wait a few minutes and try again."))
    attempt_failed(key=attempts)
    if (
        not isinstance(username, str)
        or not 3 <= len(username) <= 150
        or not username.replace("_", "").replace(".", "").replace("-", "").isalnum()
    ):
        raise InvalidInput(gettext("a username is 3 to 150 letters, digits, '.', '_' or '-'"))
    if not isinstance(password, str):
        raise InvalidInput(gettext("a password is required"))
    email = email or ""
    if not isinstance(email, str):
        raise InvalidInput(gettext("email must be a string"))
    try:
        if email:
            validate_email(email)
        validate_password(password, user=User(username=username, email=email))
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    player = player_create(username=username, password=password, email=email)
    audit_record(
        actor_type="player", actor_id=player.pk, action="player.signed_up", obj_type="player", obj_id=player.pk
    )
    return player


def user_authenticate(*, request, username: object, password: object):
    """The active user with these credentials, or None. Anything but two strings is invalid input.
    Failures are counted per address and username: beyond SIGN_IN_FAILURES_ALLOWED in the window
    every attempt is refused (`TooManyAttempts`), the right password too, to slow down guessing."""
    from django.contrib.auth import authenticate

    if not isinstance(username, str) or not isinstance(password, str):
        raise InvalidInput(gettext("username and password are strings"))
    if "\x00" in username or "\x00" in password:
        return None  # no account has such a name, and PostgreSQL text cannot hold NUL
    attempts = f"signin:{_address(request)}:{username.lower()}"
    if attempts_exhausted(key=attempts, limit=SIGN_IN_FAILURES_ALLOWED):
        raise TooManyAttempts(gettext("Too many failed attempts. Wait a few minutes and try again."))
    user = authenticate(request, username=username, password=password)
    if user is None or not user.is_active:
        attempt_failed(key=attempts)
        return None
    attempts_clear(key=attempts)
    return user


PLAY_MONEY_TOP_UPS = (10_000, 50_000, 100_000)  # the amounts a player may add in play-money mode
PLAY_MONEY_CEILING = 1_000_000  # a top-up never lifts the balance above this


class PlayMoneyOff(InvalidInput):
    code = "play_money_off"
    status = 403
    title = gettext_lazy("This service plays with real money: top-ups come from the casino.")


def player_play_money_top_up(*, player: Player, amount: object, idempotency_key: str) -> int:
    """Play money into the wallet (demo mode only): one of the offered amounts, never above the
    ceiling, and refused like a real deposit by a time-out, a self-exclusion or a deposit limit."""
    from django.conf import settings

    from ledger.models import ActorType
    from ledger.selectors import player_wallet_summary
    from ledger.services import Actor, wallet_deposit
    from protection.services import protection_check_deposit

    if not settings.PLAY_MONEY:
        raise PlayMoneyOff()
    if amount not in PLAY_MONEY_TOP_UPS or type(amount) is not int:
        raise InvalidInput(gettext("a top-up is one of the offered amounts"))
    with transaction.atomic():
        protection_check_deposit(player=player, amount=amount)
        balance = player_wallet_summary(player=player)["balance"]
        if balance + amount > PLAY_MONEY_CEILING:
            from ledger.money import format_money

            ceiling = format_money(PLAY_MONEY_CEILING, player.currency)
            raise InvalidInput(
                gettext("play money tops up to at most %(ceiling)s; play some of it first") % {"ceiling": ceiling}
            )
        wallet_deposit(player=player, amount=amount, idempotency_key=idempotency_key,
                       actor=Actor(ActorType.PLAYER, str(player.pk)), reason="play money top-up")  # fmt: skip
        audit_record(actor_type=ActorType.PLAYER, actor_id=player.pk, action="wallet.play_money_top_up",
                     obj_type="player", obj_id=player.pk, amount=amount)  # fmt: skip
    return amount


def staff_totp_enroll(*, username: str, replace: bool = False):
    """A confirmed TOTP device for a staff member (their second factor in the back office).
    An existing device is kept unless `replace` (a lost phone): then every old one is deleted."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    user = User.objects.filter(username=username, is_staff=True).first()
    if user is None:
        raise InvalidInput(gettext("no staff user %(name)r") % {"name": username})
    with transaction.atomic():
        existing = TOTPDevice.objects.filter(user=user, confirmed=True).first()
        if existing is not None and not replace:
            return existing, False
        TOTPDevice.objects.filter(user=user).delete()
        device = TOTPDevice.objects.create(user=user, name="authenticator app", confirmed=True)
        audit_record(actor_type="system", actor_id="staff_totp", action="staff.totp_enrolled", obj_type="user",
                     obj_id=user.pk, replaced=existing is not None)  # fmt: skip
    return device, True


def player_language_set(*, player: Player, language: str) -> None:
    """Save the player's language, one of settings.LANGUAGES."""
    from django.conf import settings

    if language not in dict(settings.LANGUAGES):
        raise InvalidInput(gettext("unknown language %(code)r") % {"code": language})
    if player.language != language:
        player.language = language
        player.save(update_fields=["language"])
