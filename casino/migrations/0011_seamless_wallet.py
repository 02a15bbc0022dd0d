"""Seamless-wallet partners' rounds (API.md "Seamless wallet"): the calls to their wallets, and
`casino_rounds_settle` leaving their rounds alone. A seamless round's payout goes back to the
partner's wallet by a credit, and the round is settled only once the partner acknowledged it
(casino/services/wallets.py), so the set-based settlement of transfer-wallet rounds skips them:
one more condition on the rows it claims, nothing else changes on its path."""

import importlib
import uuid

import django.db.models.deletion
from django.db import migrations, models

_PREVIOUS = importlib.import_module("casino.migrations.0010_settle_without_waiting")
_CLAIMED = "WHERE r.status = 'resolved' AND "


def _settle_function(*, seamless_skipped: bool) -> str:
    function = _PREVIOUS.FUNCTION.replace("SETTLER_LOCK", str(_PREVIOUS.SETTLER_LOCK_ID))
    assert function.count(_CLAIMED) == 2
    return function.replace(_CLAIMED, _CLAIMED + "NOT r.seamless AND ") if seamless_skipped else function


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_settle_function(seamless_skipped=True))


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_settle_function(seamless_skipped=False))


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0007_partner_wallet_url'),
        ('casino', '0010_settle_without_waiting'),
    ]

    operations = [
        migrations.AddField(
            model_name='round',
            name='seamless',
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name='WalletCall',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('transaction_id', models.CharField(max_length=64, unique=True)),
                ('kind', models.CharField(choices=[('debit', 'debit'), ('credit', 'credit'), ('rollback', 'rollback')], max_length=8)),
                ('purpose', models.CharField(choices=[('stake', 'stake'), ('raise', 'raise'), ('payout', 'payout'), ('rollback', 'rollback')], max_length=8)),
                ('round_id', models.UUIDField(db_index=True)),
                ('amount', models.BigIntegerField()),
                ('currency', models.CharField(max_length=3)),
                ('status', models.CharField(choices=[('pending', 'Pending (not answered yet)'), ('acknowledged', 'Acknowledged by the wallet'), ('refused', 'Refused for funds'), ('failed', 'Failed (rolled back)')], default='pending', max_length=12)),
                ('request_body', models.JSONField()),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('last_status_code', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('last_error', models.CharField(blank=True, max_length=300)),
                ('last_answer', models.TextField(blank=True)),
                ('latency_ms', models.PositiveIntegerField(blank=True, help_text='Of the last attempt.', null=True)),
                ('partner_balance', models.BigIntegerField(blank=True, null=True)),
                ('request_scope', models.CharField(blank=True, max_length=80)),
                ('request_key', models.CharField(blank=True, max_length=255)),
                ('request_hash', models.CharField(blank=True, max_length=64)),
                ('next_attempt_at', models.DateTimeField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('answered_at', models.DateTimeField(blank=True, null=True)),
                ('partner', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='wallet_calls', to='accounts.partner')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='wallet_calls', to='accounts.player')),
                ('reference', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rollback', to='casino.walletcall')),
            ],
            options={
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='WalletCallAttempt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('attempted_at', models.DateTimeField(auto_now_add=True)),
                ('status_code', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('error', models.CharField(blank=True, max_length=300)),
                ('answer', models.TextField(blank=True)),
                ('duration_ms', models.PositiveIntegerField(default=0)),
                ('call', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attempt_log', to='casino.walletcall')),
            ],
            options={
                'ordering': ['attempted_at'],
            },
        ),
        migrations.AddIndex(
            model_name='walletcall',
            index=models.Index(condition=models.Q(('status', 'pending')), fields=['next_attempt_at'], name='walletcall_pending'),
        ),
        migrations.AddIndex(
            model_name='walletcall',
            index=models.Index(fields=['partner', 'created_at'], name='walletcall_partner_day'),
        ),
        migrations.AddConstraint(
            model_name='walletcall',
            constraint=models.UniqueConstraint(condition=models.Q(('request_key', ''), _negated=True), fields=('request_scope', 'request_key'), name='walletcall_one_per_request'),
        ),
        migrations.AddConstraint(
            model_name='walletcall',
            constraint=models.CheckConstraint(condition=models.Q(('amount__gte', 0)), name='walletcall_amount_not_negative'),
        ),
        migrations.RunPython(forward, backward),
    ]
