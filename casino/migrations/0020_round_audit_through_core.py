"""A placed round's audit event written through `core_audit_record` again (issue #34,
docs/BENCHMARKS.md): 0019's own INSERT repeated core's row for ~15 us of one statement, serially,
which no run under load could tell apart. `casino_round_place` loaded again from its file.

Reversed, the body stays (it writes the same row)."""

from django.db import migrations

from core.sql_functions import function_reload


class Migration(migrations.Migration):
    dependencies = [("casino", "0019_round_audit_inline")]
    operations = [function_reload("casino", "casino_round_place")]
