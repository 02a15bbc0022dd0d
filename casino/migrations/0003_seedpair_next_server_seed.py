"""Every active seed pair commits to its next server seed (drawn here, one per pair); retired
pairs keep none (their next seed became the following pair's)."""

import secrets

from django.db import migrations, models

import casino.models


def draw_next_seeds(apps, schema_editor):
    SeedPair = apps.get_model("casino", "SeedPair")
    SeedPair.objects.filter(active=False).update(next_server_seed="")
    # AddField drew one default for every existing row: each active pair gets its own seed.
    for pair in SeedPair.objects.filter(active=True).only("pk").iterator():
        SeedPair.objects.filter(pk=pair.pk).update(next_server_seed=secrets.token_hex(32))


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0002_match"),
    ]

    operations = [
        migrations.AddField(
            model_name="seedpair",
            name="next_server_seed",
            field=models.CharField(blank=True, default=casino.models.server_seed_draw, max_length=64),
        ),
        migrations.RunPython(draw_next_seeds, migrations.RunPython.noop),
    ]
