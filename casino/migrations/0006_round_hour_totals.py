"""The hourly totals of resolved rounds that the back office's dashboard and reports read instead of
the rounds (casino/reports.py), and the permission to see revenue."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_partner_webhook_url_public_addresses'),
        ('casino', '0005_round_words'),
    ]

    operations = [
        migrations.CreateModel(
            name='RoundHour',
            fields=[
                ('hour', models.DateTimeField(primary_key=True, serialize=False)),
                ('summed_at', models.DateTimeField()),
            ],
        ),
        migrations.CreateModel(
            name='RoundHourTotal',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('hour', models.DateTimeField()),
                ('currency', models.CharField(max_length=3)),
                ('decks', models.PositiveSmallIntegerField()),
                ('tie_pays', models.PositiveSmallIntegerField()),
                ('tie_after_tie_bonus', models.BooleanField()),
                ('rounds', models.PositiveBigIntegerField()),
                ('staked', models.BigIntegerField(help_text='Main, raise and tie bets (minor units)')),
                ('paid', models.BigIntegerField(help_text="Paid back to the players' wallets (minor units)")),
                ('main_staked', models.BigIntegerField(help_text='Main bets and raises (minor units)')),
                ('main_return_sum', models.FloatField()),
                ('main_return_squares', models.FloatField()),
                ('tie_rounds', models.PositiveBigIntegerField()),
                ('tie_staked', models.BigIntegerField()),
                ('tie_return_sum', models.FloatField()),
                ('tie_return_squares', models.FloatField()),
            ],
            options={
                'permissions': [('view_revenue', 'Can see stakes, revenue (GGR) and return to player')],
            },
        ),
        migrations.AddField(
            model_name='roundhourtotal',
            name='partner',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.partner'),
        ),
        migrations.AddField(
            model_name='roundhourtotal',
            name='table',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='casino.table'),
        ),
        migrations.AddConstraint(
            model_name='roundhourtotal',
            constraint=models.UniqueConstraint(fields=('hour', 'table', 'partner', 'currency', 'decks', 'tie_pays', 'tie_after_tie_bonus'), name='roundhourtotal_one_per_group', nulls_distinct=False),
        ),
    ]
