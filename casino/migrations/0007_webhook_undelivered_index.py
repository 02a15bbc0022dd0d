"""An index of the webhook deliveries not delivered yet: the dispatcher's due deliveries and the
dashboard's failing ones, without reading the (many) delivered ones. Built concurrently: the table
has a row per partner round, and partners' rounds keep coming while it is built."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("casino", "0006_round_hour_totals"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="webhookdelivery",
            index=models.Index(
                condition=models.Q(("delivered_at__isnull", True)), fields=["next_attempt_at"], name="webhook_undelivered"
            ),
        ),
    ]
