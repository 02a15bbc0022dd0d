import json

from django.core.management.base import BaseCommand, CommandError

from ledger.verification import ledger_verify


class Command(BaseCommand):
    help = "Check every ledger invariant, print a JSON summary, exit non-zero when anything is wrong."

    def handle(self, *args, **options):
        run = ledger_verify(triggered_by="command")
        self.stdout.write(json.dumps(run.summary, indent=2))
        if not run.ok:
            raise CommandError("the ledger does not verify: see the summary above")
