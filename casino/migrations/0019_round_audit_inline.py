"""A round's audit event written by `casino_round_place` itself (issue #34, docs/BENCHMARKS.md):
its own INSERT, not a call of `core_audit_record` (a statement less per round, the same row).

Reversed, the body stays (it behaves the same)."""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("casino", "0018_credits_record")]
    operations = [function_reload("casino", "casino_round_place")]
