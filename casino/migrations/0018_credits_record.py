"""A batch of credit answers recorded in one statement (issue 34).

* `casino_credits_record` (new): the calls still pending locked, their attempts, fields and audit
  events written, and the acknowledged credits' rounds settled with theirs, for a whole batch (the
  worker's ORM statements per batch, most of a seamless round's CPU there: docs/BENCHMARKS.md).

The body is casino/sql/casino_credits_record.sql; reversed, the function is dropped.
"""

from django.db import migrations

from core.sql_functions import function_create


class Migration(migrations.Migration):
    dependencies = [("casino", "0017_seamless_stake_in_two_statements")]
    operations = [function_create("casino", "casino_credits_record")]
