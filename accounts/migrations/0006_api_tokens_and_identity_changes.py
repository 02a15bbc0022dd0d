"""API tokens that end (accounts/tokens.py) and maker-checker identity changes of players.

DRF's tokens (one per user, never ending, kept in clear) are not carried over: every API client
signs in again. Their table goes with the app, so that no old key stays usable anywhere; the app's
migration records go too, as if it had never been installed."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_partner_webhook_url_public_addresses'),
    ]

    operations = [
        migrations.RunSQL(
            "DROP TABLE IF EXISTS authtoken_token; DELETE FROM django_migrations WHERE app = 'authtoken';",
            migrations.RunSQL.noop,
        ),
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('digest', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('created_at', models.DateTimeField()),
                ('last_used_at', models.DateTimeField(db_index=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='PlayerIdentityChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('old_external_id', models.CharField(blank=True, max_length=128)),
                ('old_currency', models.CharField(max_length=3)),
                ('external_id', models.CharField(blank=True, help_text="The partner's id of the player (with a partner only).", max_length=128)),
                ('currency', models.CharField(help_text='ISO 4217 code of the wallet.', max_length=3)),
                ('reason', models.CharField(max_length=500)),
                ('status', models.CharField(choices=[('proposed', 'Proposed'), ('approved', 'Approved and applied'), ('rejected', 'Rejected')], default='proposed', max_length=10)),
                ('proposed_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('old_partner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.partner')),
                ('partner', models.ForeignKey(blank=True, help_text='The partner the player is to belong to; empty: the player signs in on its own.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.partner')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='identity_changes', to='accounts.player')),
                ('proposed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('decided_by__isnull', True), models.Q(('decided_by', models.F('proposed_by')), _negated=True), _connector='OR'), name='identity_change_four_eyes')],
            },
        ),
    ]
