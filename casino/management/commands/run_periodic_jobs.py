import logging
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from accounts.partners import partner_nonces_purge
from casino.services.matches import matches_purge
from casino.services.rounds import rounds_decide_timed_out
from casino.services.settlement import rounds_settle_overdue
from casino.services.webhooks import webhooks_deliver_due
from core.idempotency import idempotency_records_purge
from ledger.services import ledger_seal

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Without Redis (the embedded default) there is no Celery beat: run its periodic jobs in a loop "
        "(decision timeouts, the settlement sweeper, webhooks, the ledger seal)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--interval", type=float, default=2.0)
        parser.add_argument("--once", action="store_true", help="run every job once and exit")

    def handle(self, *args, interval, once, **options):
        tick = 0
        while True:
            close_old_connections()
            for job in (rounds_decide_timed_out, rounds_settle_overdue, webhooks_deliver_due, ledger_seal):
                try:
                    job()
                except Exception:  # one failing job must not stop the others
                    logger.exception("periodic job %s failed", job.__name__)
            if tick % 1800 == 0:
                idempotency_records_purge()
                partner_nonces_purge()
                matches_purge()
            tick += 1
            if once:
                return
            time.sleep(interval)
