from django.contrib import admin

from core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created_at", "actor_type", "actor_id", "action", "object_type", "object_id")
    list_filter = ("action", "actor_type", "object_type")
    search_fields = ("actor_id", "object_id", "action")
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
