"""Give a staff member their second factor: prints the otpauth:// address and a QR code to scan
with an authenticator app. `--code` prints the current code instead (demo servers only)."""

import io
import time

import qrcode
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_otp.oath import TOTP

from accounts.services import staff_totp_enroll
from core.errors import InvalidInput


class Command(BaseCommand):
    help = "Enrol (--replace: re-enrol) a staff user's TOTP second factor; --code prints the current code (DEBUG only)."

    def add_arguments(self, parser):
        parser.add_argument("--username", required=True)
        parser.add_argument("--replace", action="store_true", help="a new key: the old device stops working")
        parser.add_argument("--code", action="store_true", help="print the current code (only with DEBUG on)")
        parser.add_argument("--no-qr", action="store_true")

    def handle(self, *args, username, replace, code, no_qr, **options):
        try:
            device, created = staff_totp_enroll(username=username, replace=replace)
        except InvalidInput as error:
            raise CommandError(error.detail) from None
        if code:
            if not settings.DEBUG:
                raise CommandError("--code is for demo servers (DEBUG on); use an authenticator app")
            totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
            totp.time = time.time()
            self.stdout.write(f"{totp.token():0{device.digits}d}")
            return
        self.stdout.write(("New second factor" if created else "Existing second factor") + f" for {username}:")
        self.stdout.write(device.config_url)
        if not no_qr:
            qr = qrcode.QRCode(border=1)
            qr.add_data(device.config_url)
            art = io.StringIO()
            qr.print_ascii(out=art, invert=True)
            self.stdout.write(art.getvalue())
