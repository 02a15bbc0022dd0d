import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Partner
from accounts.selectors import partner_transfer_totals
from casino.selectors import WALLET_CALL_OVERDUE_AFTER, wallet_calls_reconcile


class Command(BaseCommand):
    help = (
        "Print, as JSON, a UTC day's calls to a seamless partner's wallet that it acknowledged, and every call "
        "still pending; exit non-zero while any is pending past its retries "
        f"(made more than {int(WALLET_CALL_OVERDUE_AFTER.total_seconds() // 60)} minutes ago). "
        "For a transfer partner: that day's transfers in and out, counted and totalled."
    )

    def add_arguments(self, parser):
        parser.add_argument("--partner", required=True, help="The partner's name.")
        parser.add_argument("--date", required=True, help="YYYY-MM-DD (UTC).")

    def handle(self, *args, partner, date: str, **options):
        found = Partner.objects.filter(name=partner).first()
        if found is None:
            raise CommandError(f"there is no partner named {partner!r}")
        try:
            day = _day(date)
        except ValueError:
            raise CommandError(f"{date!r} is not a date (YYYY-MM-DD)") from None
        if not found.is_seamless:
            # A transfer partner: its transfers in and out of its players' wallets that day.
            totals = partner_transfer_totals(partner=found, day=day)
            report = {
                "partner": found.name,
                "date": day.isoformat(),
                "wallet": "transfer",
                "transfers_in": totals["in"],
                "transfers_out": totals["out"],
                "pending": [],
            }
            self.stdout.write(json.dumps(report))
            return
        report = wallet_calls_reconcile(partner=found, day=day)
        self.stdout.write(json.dumps(report))
        overdue = [call["transaction_id"] for call in report["pending"] if call["overdue"]]
        if overdue:
            raise CommandError(f"{len(overdue)} calls are pending past their retries: {', '.join(overdue[:20])}")


def _day(text: str) -> date:
    if len(text) != 10:
        raise ValueError(text)
    return date.fromisoformat(text)
