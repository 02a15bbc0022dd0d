import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator
from django.db import IntegrityError

from accounts.services import partner_create
from core.errors import InvalidInput


class Command(BaseCommand):
    help = 'Create a partner casino and print {"key": ..., "secret": ...} (the secret is shown this once).'

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--webhook-url", default="")
        parser.add_argument(
            "--wallet-url",
            default="",
            help="A seamless-wallet partner: its wallet, called at URL/balance, /debit, /credit and /rollback.",
        )
        parser.add_argument(
            "--origin",
            action="append",
            default=[],
            dest="origins",
            metavar="ORIGIN",
            help="A site that may frame the partner's game sessions: https://host[:port] (repeatable).",
        )

    def handle(self, *args, name, webhook_url, wallet_url, origins, **options):
        for url in (webhook_url, wallet_url):
            if url:
                try:
                    URLValidator(schemes=["http", "https"])(url)
                except ValidationError:
                    raise CommandError(f"{url!r} is not an http(s) URL") from None
        try:
            partner, secret = partner_create(
                name=name.strip(), webhook_url=webhook_url, wallet_url=wallet_url, origins=origins
            )
        except InvalidInput as exc:  # a URL the service may not call, an origin that is none
            raise CommandError(exc.detail) from None
        except IntegrityError:
            raise CommandError(f"a partner named {name!r} exists already") from None
        self.stdout.write(json.dumps({"key": partner.key_id, "secret": secret}))
