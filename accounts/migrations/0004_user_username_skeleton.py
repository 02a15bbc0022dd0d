from django.db import migrations, models

from accounts.usernames import username_skeleton


def fill_skeletons(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.only("id", "username").iterator():
        User.objects.filter(pk=user.pk).update(username_skeleton=username_skeleton(user.username))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_player_language")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(db_index=True, default="", editable=False, max_length=600),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
    ]
