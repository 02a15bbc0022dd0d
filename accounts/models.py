from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractUser
from django.db import models

from accounts.usernames import username_skeleton
from core.outbound import outbound_url_validate
from core.times import moment_text
from ledger.money import format_money


class User(AbstractUser):
    """A person who signs in: a player (with a `player` profile) or a staff member."""

    # What the name reads like (accounts/usernames.py): a sign-up whose skeleton is taken is refused.
    username_skeleton = models.CharField(max_length=600, db_index=True, editable=False, default="")

    def save(self, *args, **kwargs):
        # Every way a user is made (sign-up, partners, the admin, commands) keeps it current.
        self.username_skeleton = username_skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_skeleton"}
        super().save(*args, **kwargs)


class Partner(models.Model):
    """A partner casino calling the API for its own players with signed requests."""

    name = models.CharField(max_length=200, unique=True)
    key_id = models.CharField(max_length=64, unique=True)
    # HMAC verification needs the secret itself; it is shown to the partner once, at creation.
    secret = models.CharField(max_length=128)
    # Checked again at every call (core/outbound.py): a name can resolve elsewhere later.
    webhook_url = models.URLField(blank=True, validators=[outbound_url_validate])
    # Set: a seamless-wallet partner (API.md "Seamless wallet"), which keeps its players' money and
    # is called at {wallet_url}/balance, /debit, /credit and /rollback; blank: a transfer wallet.
    wallet_url = models.URLField(blank=True, validators=[outbound_url_validate])
    is_active = models.BooleanField(default=True)
    # The sites that may frame its game sessions (API.md "Game launch"): origins such as
    # "https://casino.example" (accounts/game_sessions.py checks them); none: the game opens in a
    # window of its own and cannot be framed. Changed by four eyes (PartnerOriginChange).
    origins = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name

    @property
    def is_seamless(self) -> bool:
        return bool(self.wallet_url)


class Player(models.Model):
    """A player's profile: the currency of its wallet, and the partner that owns it, if any."""

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="player")
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, null=True, blank=True, related_name="players")
    external_id = models.CharField(max_length=128, blank=True)
    currency = models.CharField(max_length=3, default="EUR")
    # The language the player chose (a code of settings.LANGUAGES); empty: the browser's.
    language = models.CharField(max_length=8, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # What the player confirmed at sign-up, and when: being of the operator's minimum age (the age
    # then), and the terms of play (their version). Empty for a partner's player (its casino asks).
    age_confirmed_at = models.DateTimeField(null=True, blank=True)
    age_confirmed_minimum = models.PositiveSmallIntegerField(null=True, blank=True)
    terms_accepted_at = models.DateTimeField(null=True, blank=True)
    terms_version = models.CharField(max_length=20, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "external_id"],
                condition=models.Q(partner__isnull=False),
                name="player_unique_external_id_per_partner",
            ),
            models.CheckConstraint(condition=models.Q(currency__regex=r"^[A-Z]{3}$"), name="player_currency_iso"),
            models.CheckConstraint(
                condition=models.Q(age_confirmed_at__isnull=True, age_confirmed_minimum__isnull=True)
                | models.Q(age_confirmed_at__isnull=False, age_confirmed_minimum__gte=18),
                name="player_age_confirmed_with_its_minimum",
            ),
            models.CheckConstraint(
                condition=models.Q(terms_accepted_at__isnull=True, terms_version="")
                | (models.Q(terms_accepted_at__isnull=False) & ~models.Q(terms_version="")),
                name="player_terms_accepted_with_their_version",
            ),
        ]

    def __str__(self) -> str:
        return self.user.username

    @property
    def is_seamless(self) -> bool:
        """A seamless partner's player: its money is in the partner's wallet, never in ours."""
        return self.partner_id is not None and self.partner.is_seamless


class TransferDirection(models.TextChoices):
    IN = "in", "in"
    OUT = "out", "out"


class Transfer(models.Model):
    """Money a partner moves into (`in`) or out of (`out`) one of its players' wallets."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="transfers")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="transfers")
    direction = models.CharField(max_length=3, choices=TransferDirection.choices)
    amount = models.PositiveBigIntegerField()
    currency = models.CharField(max_length=3)
    reference = models.CharField(max_length=128)
    entry = models.OneToOneField("ledger.JournalEntry", on_delete=models.PROTECT, related_name="transfer")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="transfer_amount_positive"),
            # A partner's reference names one transfer: a repeat with a new Idempotency-Key is refused.
            models.UniqueConstraint(fields=["partner", "reference"], name="transfer_reference_once_per_partner"),
        ]

    def __str__(self) -> str:
        return f"transfer {self.direction} of {format_money(self.amount, self.currency)} for {self.player}"


class ApiToken(models.Model):
    """A player's API token (`Authorization: Token <key>`), one per sign-in. Only the key's SHA-256
    is stored: the key itself is answered once, by the sign-in. It ends when unused for
    API_TOKEN_IDLE_MINUTES, at sign-out, a password change and an exclusion (accounts/tokens.py)."""

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    created_at = models.DateTimeField()
    # Written at most once a minute (accounts/tokens.py), not on every request.
    last_used_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"token of {self.user_id} from {moment_text(self.created_at)}"


class IdentityChangeStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved and applied"
    REJECTED = "rejected", "Rejected"


class PlayerIdentityChange(models.Model):
    """A change of whose a player is (its partner and the partner's id of it) or of its wallet's
    currency: one staff member proposes, another approves (four eyes), as adjustments. The identity
    the player had when it was proposed is kept: an approval applies only to that identity."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="identity_changes")
    old_partner = models.ForeignKey(Partner, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    old_external_id = models.CharField(max_length=128, blank=True)
    old_currency = models.CharField(max_length=3)
    partner = models.ForeignKey(
        Partner,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The partner the player is to belong to; empty: the player signs in on its own.",
    )
    external_id = models.CharField(
        max_length=128, blank=True, help_text="The partner's id of the player (with a partner only)."
    )
    currency = models.CharField(max_length=3, help_text="ISO 4217 code of the wallet.")
    reason = models.CharField(max_length=500)
    status = models.CharField(
        max_length=10, choices=IdentityChangeStatus.choices, default=IdentityChangeStatus.PROPOSED
    )
    proposed_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(decided_by__isnull=True) | ~models.Q(decided_by=models.F("proposed_by")),
                name="identity_change_four_eyes",
            ),
        ]

    def __str__(self) -> str:
        return f"Identity change #{self.pk} of {self.player}"


class GameSessionEnd(models.TextChoices):
    """How a game session ended."""

    DELETED = "deleted", "Ended by the partner (DELETE)"
    IDLE = "idle", "30 minutes without a request"
    EXCLUDED = "excluded", "The player was excluded"
    OPERATOR = "operator", "Ended by an operator"
    PLAYER = "player", "Ended by the player"


class GameSession(models.Model):
    """The table opened on a partner's site for one of its players (API.md "Game launch"), or a
    demo session with a play-money player of its own. The launch URL's token opens it once,
    within LAUNCH_TTL; opening it gives the page its credential (`Authorization: GameSession
    <token>`), which only the page's scripts send. Only the SHA-256 of either is stored."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="game_sessions")
    # A demo session's player is its own play-money player (no partner): nobody's wallet.
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="game_sessions")
    demo = models.BooleanField(default=False)
    table_id = models.BigIntegerField(null=True, blank=True)  # where the player lands; none: the lobby
    language = models.CharField(max_length=8)  # a code of settings.LANGUAGES
    lobby_url = models.URLField(max_length=2000, blank=True)
    launch_digest = models.CharField(max_length=64, unique=True)
    launch_expires_at = models.DateTimeField()
    opened_at = models.DateTimeField(null=True, blank=True)
    token_digest = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Written at most about once a minute (accounts/game_sessions.py), not on every request.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True, db_index=True)
    ended_reason = models.CharField(max_length=10, choices=GameSessionEnd.choices, blank=True)
    ended_by = models.CharField(max_length=64, blank=True)  # the actor, as "operator:7"

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["player", "ended_at"], name="game_session_player_open")]

    def __str__(self) -> str:
        return f"game session {str(self.pk)[:8]} of {self.player}"


class PartnerOriginChange(models.Model):
    """A new list of the sites that may frame a partner's game sessions: one staff member proposes,
    another approves (four eyes), as identity changes. The origins the partner had when it was
    proposed are kept: an approval applies only to them."""

    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="origin_changes")
    old_origins = models.JSONField(default=list)
    origins = models.JSONField(
        default=list,
        blank=True,
        help_text="Every origin that may frame the partner's game sessions, e.g. https://casino.example",
    )
    reason = models.CharField(max_length=500)
    status = models.CharField(
        max_length=10, choices=IdentityChangeStatus.choices, default=IdentityChangeStatus.PROPOSED
    )
    proposed_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(decided_by__isnull=True) | ~models.Q(decided_by=models.F("proposed_by")),
                name="origin_change_four_eyes",
            ),
        ]

    def __str__(self) -> str:
        return f"Origin change #{self.pk} of {self.partner}"


class CredentialResetKind(models.TextChoices):
    PASSWORD = "password", "Password (a link to set a new one is e-mailed to them)"
    SECOND_FACTOR = "second_factor", "Second factor (their authenticator is revoked; staff_totp enrolls a new one)"


class CredentialResetStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved and applied"
    REJECTED = "rejected", "Rejected"


class CredentialReset(models.Model):
    """A staff member's password or second factor reset: one staff member proposes, another (not
    the one concerned) approves, and the one concerned is told by e-mail at each step
    (accounts/credentials.py). Nobody ever sets or reads another's credentials."""

    user = models.ForeignKey(
        User,
        on_delete=models.PROTECT,
        related_name="credential_resets",
        help_text="The staff member whose credential is reset.",
    )
    kind = models.CharField(max_length=16, choices=CredentialResetKind.choices)
    reason = models.CharField(max_length=500)
    status = models.CharField(
        max_length=10, choices=CredentialResetStatus.choices, default=CredentialResetStatus.PROPOSED
    )
    proposed_by = models.ForeignKey(User, on_delete=models.PROTECT, related_name="+")
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-proposed_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(decided_by__isnull=True)
                | (~models.Q(decided_by=models.F("proposed_by")) & ~models.Q(decided_by=models.F("user"))),
                name="credential_reset_four_eyes",
            ),
            models.CheckConstraint(condition=~models.Q(proposed_by=models.F("user")), name="credential_reset_not_own"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display().split(' (')[0]} reset #{self.pk} of {self.user}"
