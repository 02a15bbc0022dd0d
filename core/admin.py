from django.contrib import admin
from django.contrib.admin.models import LogEntry

from core.admin_base import ReadOnlyAdmin
from core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor_type", "actor_id", "action", "object_type", "object_id")
    list_filter = ("action", "actor_type", "object_type")
    search_fields = ("actor_id", "object_id", "action")
    date_hierarchy = "created_at"


@admin.register(LogEntry)
class AdminLogAdmin(ReadOnlyAdmin):
    """Django's own record of every change made in the back office."""

    list_display = ("action_time", "user", "content_type", "object_repr", "action_flag", "change_message")
    list_filter = ("action_flag", "content_type")
    search_fields = ("object_repr", "change_message", "user__username")
    date_hierarchy = "action_time"
