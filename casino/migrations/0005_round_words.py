"""The back office's words for a round's status, outcome and decision: choices only, no change in
the database."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0004_seedpair_next_seed_committed_when_active'),
    ]

    operations = [
        migrations.AlterField(
            model_name='round',
            name='decision',
            field=models.CharField(blank=True, choices=[('war', 'Go to war'), ('surrender', 'Surrender')], max_length=10),
        ),
        migrations.AlterField(
            model_name='round',
            name='outcome',
            field=models.CharField(blank=True, choices=[('win', 'Won'), ('lose', 'Lost'), ('surrender', 'Surrendered'), ('war_win', 'Won the war'), ('war_lose', 'Lost the war'), ('war_tie', 'Tie in the war (won)')], max_length=10),
        ),
        migrations.AlterField(
            model_name='round',
            name='status',
            field=models.CharField(choices=[('awaiting_decision', 'Awaiting decision'), ('resolved', 'Resolved, settling'), ('settled', 'Settled')], max_length=20),
        ),
    ]
