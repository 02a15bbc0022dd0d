"""Changes of a table's rules and limits (and new tables) are proposed by one staff member and
approved by another (casino/services/tables.py), as adjustments: the proposals, with the table's
values before, and the database's refusal of a proposal decided by its own maker."""

import casino.engine.casino_war
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0014_decide_rounds_together"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="TableChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("currency", models.CharField(default="EUR", max_length=3)),
                ("min_bet", models.PositiveBigIntegerField(help_text="Minor units")),
                ("max_bet", models.PositiveBigIntegerField(help_text="Minor units")),
                (
                    "bet_step",
                    models.PositiveBigIntegerField(
                        default=100, help_text="Every bet is a multiple of this (minor units)"
                    ),
                ),
                ("max_tie_bet", models.PositiveBigIntegerField(default=0, help_text="0: no tie bet at this table")),
                ("decks", models.PositiveSmallIntegerField(default=6)),
                ("burn", models.PositiveSmallIntegerField(default=3)),
                ("tie_pays", models.PositiveSmallIntegerField(default=10)),
                ("tie_after_tie_bonus", models.BooleanField(default=False)),
                (
                    "shuffle",
                    models.CharField(
                        choices=[("fresh", "fresh"), ("persistent", "persistent")],
                        default=casino.engine.casino_war.ShuffleMode["FRESH"],
                        max_length=10,
                    ),
                ),
                (
                    "penetration",
                    models.PositiveSmallIntegerField(
                        default=75, help_text="Persistent shoe: percent dealt before the cut card"
                    ),
                ),
                ("decision_timeout_s", models.PositiveIntegerField(default=30)),
                (
                    "house_rule",
                    models.CharField(
                        choices=[("war", "war"), ("surrender", "surrender")],
                        default=casino.engine.casino_war.Action["WAR"],
                        max_length=10,
                    ),
                ),
                ("before", models.JSONField(blank=True, editable=False, null=True)),
                ("reason", models.CharField(max_length=500)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("proposed", "Proposed"),
                            ("approved", "Approved and applied"),
                            ("rejected", "Rejected"),
                        ],
                        default="proposed",
                        max_length=10,
                    ),
                ),
                ("proposed_at", models.DateTimeField(auto_now_add=True)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "proposed_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        blank=True,
                        help_text="The table to change; empty: a new table (made closed).",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="changes",
                        to="casino.table",
                    ),
                ),
            ],
            options={
                "ordering": ["-proposed_at"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("decided_by__isnull", True),
                            models.Q(("decided_by", models.F("proposed_by")), _negated=True),
                            _connector="OR",
                        ),
                        name="table_change_four_eyes",
                    )
                ],
            },
        ),
    ]
