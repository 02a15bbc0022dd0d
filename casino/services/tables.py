"""Opening and closing tables, recorded in the audit log."""

from __future__ import annotations

from django.db import transaction

from casino.models import Table
from core.audit import audit_record


def table_set_open(*, table: Table, is_open: bool, by_user) -> Table:
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.is_open != is_open:
            table.is_open = is_open
            table.save(update_fields=["is_open", "updated_at"])
            audit_record(
                actor_type="operator", actor_id=by_user.pk, action="table.opened" if is_open else "table.closed",
                obj_type="table", obj_id=table.pk, name=table.name,
            )  # fmt: skip
    return table
