from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person who signs in: a player (with a `player` profile) or a staff member."""


class Partner(models.Model):
    """A partner casino calling the API for its own players with signed requests."""

    name = models.CharField(max_length=200, unique=True)
    key_id = models.CharField(max_length=64, unique=True)
    # HMAC verification needs the secret itself; it is shown to the partner once, at creation.
    secret = models.CharField(max_length=128)
    webhook_url = models.URLField(blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A player's profile: the currency of its wallet, and the partner that owns it, if any."""

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="player")
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, null=True, blank=True, related_name="players")
    external_id = models.CharField(max_length=128, blank=True)
    currency = models.CharField(max_length=3, default="EUR")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "external_id"],
                condition=models.Q(partner__isnull=False),
                name="player_unique_external_id_per_partner",
            ),
            models.CheckConstraint(condition=models.Q(currency__regex=r"^[A-Z]{3}$"), name="player_currency_iso"),
        ]

    def __str__(self) -> str:
        return self.user.username
