import json

from django.core.management.base import BaseCommand

from accounts.services import roles_sync


class Command(BaseCommand):
    help = "Create the staff groups (operator, auditor, support) and grant exactly their permissions."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(roles_sync()))
