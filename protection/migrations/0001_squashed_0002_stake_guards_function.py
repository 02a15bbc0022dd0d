"""Player protection's migrations 0001 and 0002 in one: its models as they are now and
`protection_stake_guards`, loaded from its file (protection/sql/, core/sql_functions.py)."""

import django.db.models.deletion
from django.db import migrations, models

from core.sql_functions import function_create


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('protection', '0001_initial'),
        ('protection', '0002_stake_guards_function'),
    ]

    dependencies = [
        ('accounts', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='RealityCheck',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('interval_minutes', models.PositiveIntegerField(default=0)),
                ('session_started_at', models.DateTimeField(blank=True, null=True)),
                ('player', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='reality_check', to='accounts.player')),
            ],
        ),
        migrations.CreateModel(
            name='Exclusion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('timeout', 'Time-out'), ('self_exclusion', 'Self-exclusion')], max_length=16)),
                ('starts_at', models.DateTimeField()),
                ('ends_at', models.DateTimeField()),
                ('requested_by_type', models.CharField(max_length=10)),
                ('requested_by_id', models.CharField(max_length=64)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='exclusions', to='accounts.player')),
            ],
            options={
                'ordering': ['-starts_at'],
                'constraints': [models.CheckConstraint(condition=models.Q(('ends_at__gt', models.F('starts_at'))), name='exclusion_has_length')],
            },
        ),
        migrations.CreateModel(
            name='PlayerLimit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('deposit', 'Deposits (transfers in)'), ('loss', 'Net loss'), ('wager', 'Total staked')], max_length=8)),
                ('period', models.CharField(choices=[('day', '24 hours'), ('week', '7 days'), ('month', '30 days')], max_length=5)),
                ('amount', models.PositiveBigIntegerField(blank=True, help_text='Minor units; empty: no limit', null=True)),
                ('requested_at', models.DateTimeField()),
                ('effective_from', models.DateTimeField()),
                ('requested_by_type', models.CharField(max_length=10)),
                ('requested_by_id', models.CharField(max_length=64)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='limits', to='accounts.player')),
            ],
            options={
                'ordering': ['-requested_at', '-id'],
                'indexes': [models.Index(fields=['player', 'kind', 'period', 'effective_from'], name='protection__player__769df3_idx')],
            },
        ),
        function_create('protection', 'protection_stake_guards'),
    ]
