"""Resets of a staff member's password or second factor, proposed by one staff member and approved
by another who is not the one concerned (accounts/credentials.py); the database refuses a reset
decided by its proposer or by the one concerned, and one proposed for oneself."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_partner_nonces_move_to_core"),
    ]

    operations = [
        migrations.CreateModel(
            name="CredentialReset",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("password", "Password (a link to set a new one is e-mailed to them)"),
                            (
                                "second_factor",
                                "Second factor (their authenticator is revoked; staff_totp enrolls a new one)",
                            ),
                        ],
                        max_length=16,
                    ),
                ),
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
                    "user",
                    models.ForeignKey(
                        help_text="The staff member whose credential is reset.",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="credential_resets",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-proposed_at"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("decided_by__isnull", True),
                            models.Q(
                                models.Q(("decided_by", models.F("proposed_by")), _negated=True),
                                models.Q(("decided_by", models.F("user")), _negated=True),
                            ),
                            _connector="OR",
                        ),
                        name="credential_reset_four_eyes",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("proposed_by", models.F("user")), _negated=True),
                        name="credential_reset_not_own",
                    ),
                ],
            },
        ),
    ]
