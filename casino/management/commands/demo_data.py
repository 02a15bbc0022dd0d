import os

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import Player, User
from accounts.roles import AUDITOR, OPERATOR
from accounts.services import player_create, roles_sync, staff_totp_enroll
from casino.checks import PUBLIC_DEMO_PASSWORD
from casino.models import Table
from core.actors import Actor
from ledger.services import wallet_deposit

DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD") or PUBLIC_DEMO_PASSWORD  # `check --deploy` refuses it
PLAY_MONEY = 100_000  # 1,000.00 EUR


class Command(BaseCommand):
    help = (
        "Load the demo set: an open EUR table, a demo player with play money, staff logins. Safe to rerun. "
        "Its logins have a published password: with DEBUG off it runs only on a demo server (DEMO_DATA=true) "
        "or with --yes-demo-logins."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--yes-demo-logins",
            action="store_true",
            help="load the demo logins (a published password, a funded player) although DEBUG is off",
        )

    def handle(self, *args, **options):
        if not (settings.DEBUG or settings.DEMO_DATA or options["yes_demo_logins"]):
            raise CommandError(
                "demo_data loads logins whose password is published and a player with money: refused with DEBUG "
                "off. On a demo server set DEMO_DATA=true, or run it with --yes-demo-logins. Nothing was written."
            )
        roles_sync()
        with transaction.atomic():
            Table.objects.get_or_create(
                name="Classic EUR",
                defaults={
                    "currency": "EUR",
                    "min_bet": 100,
                    "max_bet": 50_000,
                    "bet_step": 100,
                    "max_tie_bet": 5_000,
                },
            )
            Table.objects.get_or_create(
                name="High Roller EUR (tie-after-tie bonus)",
                defaults={
                    "currency": "EUR",
                    "min_bet": 1_000,
                    "max_bet": 500_000,
                    "bet_step": 500,
                    "max_tie_bet": 50_000,
                    "tie_after_tie_bonus": True,
                    "tie_pays": 11,
                },
            )
            player = Player.objects.filter(user__username="demo").first()
            if player is None:
                player = player_create(username="demo", password=DEMO_PASSWORD, email="demo@example.com")
            wallet_deposit(
                player=player,
                amount=PLAY_MONEY,
                idempotency_key="demo:play-money:demo",
                actor=Actor.system("demo_data"),
                reason="demo play money",
            )
            for username, group, superuser in (
                ("operator", OPERATOR, False),
                ("auditor", AUDITOR, False),
                ("admin", None, True),
            ):
                user, created = User.objects.get_or_create(
                    username=username, defaults={"is_staff": True, "is_superuser": superuser}
                )
                if created:
                    user.set_password(DEMO_PASSWORD)
                    user.save(update_fields=["password"])
                if group:
                    user.groups.add(*Group.objects.filter(name=group))
                staff_totp_enroll(username=username)
        self.stdout.write(
            "Demo data ready.\n"
            f"  player   demo / {DEMO_PASSWORD}  (1,000.00 EUR play money)\n"
            f"  staff    operator / {DEMO_PASSWORD}, auditor / {DEMO_PASSWORD}, admin / {DEMO_PASSWORD} (superuser)\n"
            "           plus a TOTP code: `bin/manage staff_totp --username operator` shows the QR code\n"
            "           to scan; on a demo server `bin/manage staff_totp --username operator --code`\n"
            "           prints the current code\n"
        )
