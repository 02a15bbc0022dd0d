"""A seamless partner's wallet URL (API.md "Seamless wallet")."""

import core.outbound
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_api_tokens_and_identity_changes'),
    ]

    operations = [
        migrations.AddField(
            model_name='partner',
            name='wallet_url',
            field=models.URLField(blank=True, validators=[core.outbound.outbound_url_validate]),
        ),
    ]
