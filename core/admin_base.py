from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Visible and searchable in the back office, never added, changed or deleted there."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
