"""Accounts' models as they are now, but for what needs the ledger's tables (0002). Rewritten when
the migrations were squashed: a database that ran the first 0001 ran 0002 to 0012 too, which
0002_squashed_0012 replaces, so it reads this one as applied and runs nothing of it."""

import core.outbound
import django.contrib.auth.models
import django.contrib.auth.validators
import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.CreateModel(
            name='Partner',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, unique=True)),
                ('key_id', models.CharField(max_length=64, unique=True)),
                ('secret', models.CharField(max_length=128)),
                ('webhook_url', models.URLField(blank=True, validators=[core.outbound.outbound_url_validate])),
                ('wallet_url', models.URLField(blank=True, validators=[core.outbound.outbound_url_validate])),
                ('is_active', models.BooleanField(default=True)),
                ('origins', models.JSONField(blank=True, default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.CreateModel(
            name='Transfer',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('direction', models.CharField(choices=[('in', 'in'), ('out', 'out')], max_length=3)),
                ('amount', models.PositiveBigIntegerField()),
                ('currency', models.CharField(max_length=3)),
                ('reference', models.CharField(max_length=128)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='User',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('password', models.CharField(max_length=128, verbose_name='password')),
                ('last_login', models.DateTimeField(blank=True, null=True, verbose_name='last login')),
                ('is_superuser', models.BooleanField(default=False, help_text='Designates that this user has all permissions without explicitly assigning them.', verbose_name='superuser status')),
                ('username', models.CharField(error_messages={'unique': 'A user with that username already exists.'}, help_text='Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.', max_length=150, unique=True, validators=[django.contrib.auth.validators.UnicodeUsernameValidator()], verbose_name='username')),
                ('first_name', models.CharField(blank=True, max_length=150, verbose_name='first name')),
                ('last_name', models.CharField(blank=True, max_length=150, verbose_name='last name')),
                ('email', models.EmailField(blank=True, max_length=254, verbose_name='email address')),
                ('is_staff', models.BooleanField(default=False, help_text='Designates whether the user can log into this admin site.', verbose_name='staff status')),
                ('is_active', models.BooleanField(default=True, help_text='Designates whether this user should be treated as active. Unselect this instead of deleting accounts.', verbose_name='active')),
                ('date_joined', models.DateTimeField(default=django.utils.timezone.now, verbose_name='date joined')),
                ('username_skeleton', models.CharField(db_index=True, default='', editable=False, max_length=600)),
                ('groups', models.ManyToManyField(blank=True, help_text='The groups this user belongs to. A user will get all permissions granted to each of their groups.', related_name='user_set', related_query_name='user', to='auth.group', verbose_name='groups')),
                ('user_permissions', models.ManyToManyField(blank=True, help_text='Specific permissions for this user.', related_name='user_set', related_query_name='user', to='auth.permission', verbose_name='user permissions')),
            ],
            options={
                'verbose_name': 'user',
                'verbose_name_plural': 'users',
                'abstract': False,
            },
            managers=[
                ('objects', django.contrib.auth.models.UserManager()),
            ],
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
            name='CredentialReset',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('password', 'Password (a link to set a new one is e-mailed to them)'), ('second_factor', 'Second factor (their authenticator is revoked; staff_totp enrolls a new one)')], max_length=16)),
                ('reason', models.CharField(max_length=500)),
                ('status', models.CharField(choices=[('proposed', 'Proposed'), ('approved', 'Approved and applied'), ('rejected', 'Rejected')], default='proposed', max_length=10)),
                ('proposed_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('proposed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(help_text='The staff member whose credential is reset.', on_delete=django.db.models.deletion.PROTECT, related_name='credential_resets', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-proposed_at'],
            },
        ),
        migrations.CreateModel(
            name='PartnerOriginChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('old_origins', models.JSONField(default=list)),
                ('origins', models.JSONField(blank=True, default=list, help_text="Every origin that may frame the partner's game sessions, e.g. https://casino.example")),
                ('reason', models.CharField(max_length=500)),
                ('status', models.CharField(choices=[('proposed', 'Proposed'), ('approved', 'Approved and applied'), ('rejected', 'Rejected')], default='proposed', max_length=10)),
                ('proposed_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='origin_changes', to='accounts.partner')),
                ('proposed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='Player',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('external_id', models.CharField(blank=True, max_length=128)),
                ('currency', models.CharField(default='EUR', max_length=3)),
                ('language', models.CharField(blank=True, max_length=8)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('age_confirmed_at', models.DateTimeField(blank=True, null=True)),
                ('age_confirmed_minimum', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('terms_accepted_at', models.DateTimeField(blank=True, null=True)),
                ('terms_version', models.CharField(blank=True, max_length=20)),
                ('partner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='players', to='accounts.partner')),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='player', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='GameSession',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('demo', models.BooleanField(default=False)),
                ('table_id', models.BigIntegerField(blank=True, null=True)),
                ('language', models.CharField(max_length=8)),
                ('lobby_url', models.URLField(blank=True, max_length=2000)),
                ('launch_digest', models.CharField(max_length=64, unique=True)),
                ('launch_expires_at', models.DateTimeField()),
                ('opened_at', models.DateTimeField(blank=True, null=True)),
                ('token_digest', models.CharField(blank=True, max_length=64, null=True, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('last_seen_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, db_index=True, null=True)),
                ('ended_reason', models.CharField(blank=True, choices=[('deleted', 'Ended by the partner (DELETE)'), ('idle', '30 minutes without a request'), ('excluded', 'The player was excluded'), ('operator', 'Ended by an operator'), ('player', 'Ended by the player')], max_length=10)),
                ('ended_by', models.CharField(blank=True, max_length=64)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='game_sessions', to='accounts.partner')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='game_sessions', to='accounts.player')),
            ],
            options={
                'ordering': ['-created_at'],
            },
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
        ),
    ]
