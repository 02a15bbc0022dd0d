"""Partners' nonces are signed requests' nonces in core (`core.RequestNonce`, core/nonces.py):
recorded for every signed request, not only while Redis is away, so `PartnerNonce` goes. Its rows
are nonces of the last minutes at most, whose requests' timestamps are stale soon after."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0009_transfer_reference_once_per_partner"), ("core", "0007_request_nonces")]
    operations = [migrations.DeleteModel(name="PartnerNonce")]
