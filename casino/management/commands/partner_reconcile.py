import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Partner
from casino.selectors import WALLET_CALL_OVERDUE_AFTER, wallet_calls_reconcile


class Command(BaseCommand):
    help = (
        "Print, as JSON, a UTC day's calls to a seamless partner's wallet that it acknowledged, and every call "
        "still pending; exit non-zero while any is pending past its retries "
        f"(made more than {int(WALLET_CALL_OVERDUE_AFTER.total_seconds() // 60)} minutes ago)."
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
        report = wallet_calls_reconcile(partner=found, day=day)
        self.stdout.write(json.dumps(report))
        overdue = [call["transaction_id"] for call in report["pending"] if call["overdue"]]
        if overdue:
            raise CommandError(f"{len(overdue)} calls are pending past their retries: {', '.join(overdue[:20])}")


def _day(text: str) -> date:
    if len(text) != 10:
        raise ValueError(text)
    return date.fromisoformat(text)
