"""Recording audit events: one small service every app calls when money or state changes."""

from __future__ import annotations

from core.models import AuditEvent


def audit_record(
    *, actor_type: str, actor_id: object, action: str, obj_type: str, obj_id: object, **data
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor_type=str(actor_type),
        actor_id=str(actor_id)[:64],
        action=action,
        object_type=obj_type,
        object_id=str(obj_id)[:64],
        data=data,
    )
