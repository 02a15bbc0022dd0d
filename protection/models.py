"""Limits a player sets (or its partner sets for it), time-outs and self-exclusions.

Limit rows are never edited: each change is a new row with the moment it takes effect (at once
for a decrease, after the cooling-off period for an increase or a removal). The limit in force
at a moment is the most recently requested one among those already in effect then.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.times import moment_text


class LimitKind(models.TextChoices):
    DEPOSIT = "deposit", "Deposits (transfers in)"
    LOSS = "loss", "Net loss"
    WAGER = "wager", "Total staked"


class LimitPeriod(models.TextChoices):
    DAY = "day", "24 hours"
    WEEK = "week", "7 days"
    MONTH = "month", "30 days"


PERIOD_DAYS = {LimitPeriod.DAY: 1, LimitPeriod.WEEK: 7, LimitPeriod.MONTH: 30}
REALITY_CHECK_MINUTES = (10, 480)  # the shortest and the longest interval between reminders, besides 0 (never)


class PlayerLimit(models.Model):
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="limits")
    kind = models.CharField(max_length=8, choices=LimitKind.choices)
    period = models.CharField(max_length=5, choices=LimitPeriod.choices)
    amount = models.PositiveBigIntegerField(null=True, blank=True, help_text="Minor units; empty: no limit")
    requested_at = models.DateTimeField()
    effective_from = models.DateTimeField()
    requested_by_type = models.CharField(max_length=10)
    requested_by_id = models.CharField(max_length=64)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["player", "kind", "period", "effective_from"])]

    def __str__(self) -> str:
        value = "none" if self.amount is None else self.amount
        return f"{self.player} {self.kind}/{self.period} = {value} from {moment_text(self.effective_from)}"


class ExclusionKind(models.TextChoices):
    TIMEOUT = "timeout", "Time-out"
    SELF_EXCLUSION = "self_exclusion", "Self-exclusion"


class Exclusion(models.Model):
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="exclusions")
    kind = models.CharField(max_length=16, choices=ExclusionKind.choices)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    requested_by_type = models.CharField(max_length=10)
    requested_by_id = models.CharField(max_length=64)

    class Meta:
        ordering = ["-starts_at"]
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__gt=models.F("starts_at")), name="exclusion_has_length")
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.player} until {moment_text(self.ends_at)}"


class RealityCheck(models.Model):
    """How often the player wants to be reminded of its session (0: never)."""

    player = models.OneToOneField("accounts.Player", on_delete=models.CASCADE, related_name="reality_check")
    interval_minutes = models.PositiveIntegerField(default=0)
    session_started_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.player}: every {self.interval_minutes} min"
