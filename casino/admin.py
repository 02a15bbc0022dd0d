from django.contrib import admin

from casino.models import Table
from casino.selectors import table_house_edge

RULE_FIELDS = ("decks", "burn", "tie_pays", "tie_after_tie_bonus", "shuffle", "penetration", "house_rule")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "currency",
        "is_open",
        "min_bet",
        "max_bet",
        "bet_step",
        "max_tie_bet",
        "decks",
        "house_edge",
    )
    list_filter = ("is_open", "currency", "decks")
    search_fields = ("name",)
    actions = ("open_tables", "close_tables")

    @admin.display(description="house edge (war)")
    def house_edge(self, obj):
        return f"{table_house_edge(table=obj)['war'] * 100:.4f} %"

    def get_readonly_fields(self, request, obj=None):
        # A table's rules change only while it is closed: players must never see them move.
        if obj is not None and obj.is_open:
            return (*RULE_FIELDS, "currency")
        return ()

    @admin.action(description="Open the selected tables", permissions=["change"])
    def open_tables(self, request, queryset):
        queryset.update(is_open=True)

    @admin.action(description="Close the selected tables", permissions=["change"])
    def close_tables(self, request, queryset):
        queryset.update(is_open=False)
