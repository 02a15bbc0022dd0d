"""`ledger_post_entry` locks its accounts with a statement planned once per connection.

The lock read the ids with `id = ANY (p_accounts)`. The planner sizes that from the array's
values, so the statement's generic plan never looked as cheap as a plan for the values at hand,
and PostgreSQL planned it again on every call: 24 us of a posting's ~150 us, two postings per
round (pg_stat_statements, docs/BENCHMARKS.md). The ids now come from `unnest` of the lines, which
the planner sizes the same way with or without values, so the cached generic plan is used. The
same rows are locked, in the same primary-key order; nothing else in the function changes.
"""

import importlib

from django.db import migrations

_PREVIOUS = importlib.import_module("ledger.migrations.0007_leaner_posting")
_LOCK_BEFORE = "PERFORM 1 FROM ledger_account WHERE id = ANY (p_accounts) ORDER BY id FOR NO KEY UPDATE;"
_LOCK_NOW = (
    "PERFORM 1 FROM ledger_account WHERE id IN (SELECT l.a FROM unnest(p_accounts, p_amounts) AS l(a, d))\n"
    "     ORDER BY id FOR NO KEY UPDATE;"
)


def _post(lock: str) -> str:
    assert _PREVIOUS.POST.count(_LOCK_BEFORE) == 1
    return _PREVIOUS.POST.replace(_LOCK_BEFORE, lock)


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_post(_LOCK_NOW))


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_post(_LOCK_BEFORE))


class Migration(migrations.Migration):
    dependencies = [("ledger", "0009_partner_seamless_account")]
    operations = [migrations.RunPython(forward, backward)]
