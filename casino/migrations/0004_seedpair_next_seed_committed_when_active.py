from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0003_seedpair_next_server_seed"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="seedpair",
            constraint=models.CheckConstraint(
                condition=models.Q(("active", False), models.Q(("next_server_seed", ""), _negated=True), _connector="OR"),
                name="seedpair_next_seed_committed_when_active",
            ),
        ),
    ]
