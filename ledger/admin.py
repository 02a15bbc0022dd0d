"""The ledger in the back office: everything searchable, nothing editable (append-only).

Adjustments are the one way staff move money: proposed here, approved by someone else.
"""

import json

from django.contrib import admin, messages
from django.utils.html import format_html

from core.admin_base import ReadOnlyAdmin
from core.errors import ServiceError
from ledger.models import (
    Account,
    Adjustment,
    AdjustmentStatus,
    EntrySeal,
    JournalEntry,
    Posting,
    VerificationRun,
)
from ledger.money import Money
from ledger.services import adjustment_approve, adjustment_propose, adjustment_reject


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ("account", "direction", "amount", "currency", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "owner", "shard", "balance_display")
    list_filter = ("kind", "currency")
    search_fields = ("player__user__username", "partner__name", "=id")
    list_select_related = ("player__user", "partner")

    @admin.display(description="owner")
    def owner(self, obj):
        return obj.player or obj.partner or "system"

    @admin.display(description="balance", ordering="balance")
    def balance_display(self, obj):
        return str(Money(obj.balance, obj.currency))


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "kind",
        "actor_type",
        "actor_id",
        "reference_type",
        "reference_id",
        "reason",
    )
    list_filter = ("kind", "actor_type", "reference_type")
    search_fields = ("=id", "idempotency_key", "reference_id", "reason", "actor_id")
    date_hierarchy = "created_at"
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("id", "entry", "account", "direction", "amount", "currency", "balance_after")
    list_filter = ("direction", "currency", "account__kind")
    search_fields = ("=entry__id", "=account__id", "account__player__user__username")
    list_select_related = ("entry", "account")


@admin.register(EntrySeal)
class EntrySealAdmin(ReadOnlyAdmin):
    list_display = ("sequence", "entry", "hash", "sealed_at")
    search_fields = ("hash", "=entry__id")


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "result", "triggered_by", "duration")
    list_filter = ("ok", "triggered_by")
    readonly_fields = ("started_at", "finished_at", "ok", "triggered_by", "summary_pretty")
    exclude = ("summary",)

    @admin.display(description="result", ordering="ok")
    def result(self, obj):
        colour, text = ("#0a6b2e", "all invariants hold") if obj.ok else ("#b00020", "PROBLEMS FOUND")
        return format_html('<strong style="color:{}">{}</strong>', colour, text)

    @admin.display(description="duration")
    def duration(self, obj):
        return f"{(obj.finished_at - obj.started_at).total_seconds():.2f} s"

    @admin.display(description="summary")
    def summary_pretty(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.summary, indent=2))


@admin.register(Adjustment)
class AdjustmentAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "player",
        "amount_display",
        "reason",
        "status",
        "proposed_by",
        "decided_by",
        "decided_at",
    )
    list_filter = ("status", "currency")
    search_fields = ("player__user__username", "reason")
    fields = ("player", "amount", "reason")
    raw_id_fields = ("player",)
    actions = ("approve_selected", "reject_selected")

    @admin.display(description="amount")
    def amount_display(self, obj):
        return str(Money(obj.amount, obj.currency))

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            created = adjustment_propose(
                player=obj.player, amount=obj.amount, reason=obj.reason, proposed_by=request.user
            )
        except ServiceError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
            return
        obj.pk = created.pk

    def _decide(self, request, queryset, decide, verb):
        for adjustment in queryset.filter(status=AdjustmentStatus.PROPOSED):
            try:
                decide(adjustment, request.user)
            except ServiceError as exc:
                self.message_user(request, f"#{adjustment.pk}: {exc.detail}", messages.ERROR)
            else:
                self.message_user(request, f"#{adjustment.pk} {verb}.", messages.SUCCESS)

    @admin.action(description="Approve and post the selected adjustments", permissions=["change"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, lambda a, u: adjustment_approve(adjustment=a, approved_by=u), "approved")

    @admin.action(description="Reject the selected adjustments", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda a, u: adjustment_reject(adjustment=a, rejected_by=u), "rejected")
