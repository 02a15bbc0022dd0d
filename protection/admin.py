from django.contrib import admin

from core.admin_base import ReadOnlyAdmin
from protection.models import Exclusion, PlayerLimit, RealityCheck


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "period", "amount", "requested_at", "effective_from", "requested_by_type")
    list_filter = ("kind", "period", "requested_by_type")
    search_fields = ("player__user__username", "player__external_id")


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at", "requested_by_type")
    list_filter = ("kind",)
    search_fields = ("player__user__username", "player__external_id")


@admin.register(RealityCheck)
class RealityCheckAdmin(ReadOnlyAdmin):
    list_display = ("player", "interval_minutes", "session_started_at")
    search_fields = ("player__user__username",)
