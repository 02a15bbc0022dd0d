from django.contrib import admin

from protection.models import Exclusion, PlayerLimit, RealityCheck


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnly):
    list_display = ("player", "kind", "period", "amount", "requested_at", "effective_from", "requested_by_type")
    list_filter = ("kind", "period", "requested_by_type")
    search_fields = ("player__user__username", "player__external_id")


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnly):
    list_display = ("player", "kind", "starts_at", "ends_at", "requested_by_type")
    list_filter = ("kind",)
    search_fields = ("player__user__username", "player__external_id")


@admin.register(RealityCheck)
class RealityCheckAdmin(ReadOnly):
    list_display = ("player", "interval_minutes", "session_started_at")
    search_fields = ("player__user__username",)
