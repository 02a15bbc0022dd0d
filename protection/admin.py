from django.contrib import admin
from django.utils import timezone

from core.admin_base import ReadOnlyAdmin
from ledger.admin_money import money_text
from protection.models import Exclusion, ExclusionKind, PlayerLimit, RealityCheck


@admin.register(PlayerLimit)
class PlayerLimitAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "period", "limit", "requested_at", "effective_from", "requested_by_type")
    list_filter = ("kind", "period", "requested_by_type")
    search_fields = ("player__user__username", "player__external_id")
    list_select_related = ("player__user",)
    fields = (
        "player",
        "kind",
        "period",
        "limit",
        "requested_at",
        "effective_from",
        "requested_by_type",
        "requested_by_id",
    )
    readonly_fields = ("limit",)

    @admin.display(description="amount", ordering="amount")
    def limit(self, obj):
        return "no limit" if obj.amount is None else money_text(obj.amount, obj.player.currency)


class InForceFilter(admin.SimpleListFilter):
    """The time-outs and self-exclusions in force now (the dashboard links here)."""

    title = "in force now"
    parameter_name = "in_force"

    def lookups(self, request, model_admin):
        return [("any", "Any kind"), *ExclusionKind.choices]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        now = timezone.now()
        queryset = queryset.filter(starts_at__lte=now, ends_at__gt=now)
        return queryset if self.value() == "any" else queryset.filter(kind=self.value())


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ("player", "kind", "starts_at", "ends_at", "requested_by_type")
    list_filter = (InForceFilter, "kind")
    search_fields = ("player__user__username", "player__external_id")
    list_select_related = ("player__user",)


@admin.register(RealityCheck)
class RealityCheckAdmin(ReadOnlyAdmin):
    list_display = ("player", "interval_minutes", "session_started_at")
    search_fields = ("player__user__username",)
