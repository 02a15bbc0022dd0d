from django.contrib import admin

from core.admin_base import ReadOnlyAdmin
from core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor_type", "actor_id", "action", "object_type", "object_id")
    list_filter = ("action", "actor_type", "object_type")
    search_fields = ("actor_id", "object_id", "action")
    date_hierarchy = "created_at"
