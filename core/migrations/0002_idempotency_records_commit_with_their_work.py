"""Idempotency records are now written with the request's work, in its transaction, so there are
no in-flight claims any more. A claim still marked in flight belonged to a request whose work
never committed (its record and its work committed together): dropping it lets a retry run."""

from django.db import migrations


def drop_claims_whose_work_never_committed(apps, schema_editor):
    apps.get_model("core", "IdempotencyRecord").objects.filter(in_flight=True).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(drop_claims_whose_work_never_committed, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="idempotencyrecord",
            name="in_flight",
        ),
    ]
