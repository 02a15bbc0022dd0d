from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from casino.engine import Action, CasinoWarRules, ShuffleMode, TableLimits


class Table(models.Model):
    """A Casino War table: its rules (RULES.md section 3), limits, currency and open/closed state."""

    name = models.CharField(max_length=100, unique=True)
    currency = models.CharField(max_length=3, default="EUR")
    is_open = models.BooleanField(default=True)
    min_bet = models.PositiveBigIntegerField(help_text="Minor units")
    max_bet = models.PositiveBigIntegerField(help_text="Minor units")
    bet_step = models.PositiveBigIntegerField(default=100, help_text="Every bet is a multiple of this (minor units)")
    max_tie_bet = models.PositiveBigIntegerField(default=0, help_text="0: no tie bet at this table")
    decks = models.PositiveSmallIntegerField(default=6)
    burn = models.PositiveSmallIntegerField(default=3)
    tie_pays = models.PositiveSmallIntegerField(default=10)
    tie_after_tie_bonus = models.BooleanField(default=False)
    shuffle = models.CharField(
        max_length=10, choices=[(m.value, m.value) for m in ShuffleMode], default=ShuffleMode.FRESH
    )
    penetration = models.PositiveSmallIntegerField(
        default=75, help_text="Persistent shoe: percent dealt before the cut card"
    )
    decision_timeout_s = models.PositiveIntegerField(default=30)
    house_rule = models.CharField(max_length=10, choices=[(a.value, a.value) for a in Action], default=Action.WAR)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(decks__gte=1, decks__lte=8), name="table_decks_1_8"),
            models.CheckConstraint(condition=Q(burn__lte=5), name="table_burn_0_5"),
            models.CheckConstraint(condition=Q(tie_pays__gte=1, tie_pays__lte=30), name="table_tie_pays_1_30"),
            models.CheckConstraint(condition=Q(penetration__gte=50, penetration__lte=90), name="table_penetration"),
            models.CheckConstraint(
                condition=Q(bet_step__gte=1, min_bet__gte=F("bet_step"), max_bet__gte=F("min_bet")),
                name="table_limits_ordered",
            ),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="table_currency_iso"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self) -> CasinoWarRules:
        return CasinoWarRules(
            decks=self.decks,
            burn=self.burn,
            tie_pays=self.tie_pays,
            tie_after_tie_bonus=self.tie_after_tie_bonus,
            shuffle=ShuffleMode(self.shuffle),
            penetration=self.penetration,
            house_rule=Action(self.house_rule),
        )

    @property
    def limits(self) -> TableLimits:
        return TableLimits(
            min_bet=self.min_bet, max_bet=self.max_bet, bet_step=self.bet_step, max_tie_bet=self.max_tie_bet
        )
