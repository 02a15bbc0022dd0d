"""The ledger in the back office: everything searchable, nothing editable (append-only).

Adjustments are the one way staff move money: proposed here, approved by someone else.
"""

import csv
import itertools
import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, StreamingHttpResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

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
from ledger.selectors import account_lines
from ledger.services import adjustment_approve, adjustment_propose, adjustment_reject

LINES_SHOWN = 50


def account_lines_html(account: Account) -> str:
    """The account's last lines, newest first in the order its balance changed (each line's balance
    after, less its amount, is the next line's), and a link to all of them as CSV."""
    rows = [
        (line.entry.created_at.strftime("%Y-%m-%d %H:%M:%S"), line.entry.get_kind_display(),
         Money(line.signed_amount, line.currency), Money(line.balance_after, line.currency),
         line.entry.reference_id or "-")
        for line in account_lines(account=account)[:LINES_SHOWN]
    ]  # fmt: skip
    body = (
        format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows)
        if rows
        else format_html('<tr><td colspan="5">none</td></tr>')
    )
    return format_html(
        "<table><thead><tr><th>when</th><th>kind</th><th>amount</th><th>balance after</th><th>reference</th></tr>"
        '</thead><tbody>{}</tbody></table><p><a href="{}">All lines (CSV)</a></p>',
        body, reverse("admin:ledger_account_lines_csv", args=[account.pk]),
    )  # fmt: skip


class _Echo:
    def write(self, value: str) -> str:
        return value


def account_lines_csv(account: Account) -> StreamingHttpResponse:
    """Every line of the account, newest first in the order its balance changed, amounts in minor
    units (as the report exports); streamed, since a house account has many."""
    writer = csv.writer(_Echo())
    header = ["posting", "entry", "created_at", "kind", "reference_type", "reference_id", "amount", "balance_after",
              "currency"]  # fmt: skip
    rows = (
        [line.pk, line.entry_id, line.entry.created_at.isoformat(), line.entry.kind, line.entry.reference_type,
         line.entry.reference_id, line.signed_amount, line.balance_after, line.currency]
        for line in account_lines(account=account).iterator(chunk_size=2000)
    )  # fmt: skip
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in itertools.chain([header], rows)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="account-{account.pk}-lines.csv"'
    return response


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

    readonly_fields = ("lines",)

    @admin.display(description=f"last {LINES_SHOWN} lines")
    def lines(self, obj):
        return account_lines_html(obj)

    def get_urls(self):
        csv_view = self.admin_site.admin_view(self.lines_csv_view)
        return [path("<path:object_id>/lines.csv", csv_view, name="ledger_account_lines_csv"), *super().get_urls()]

    def lines_csv_view(self, request, object_id):
        account = self.get_object(request, object_id)
        if account is None:
            raise Http404("no such account")
        if not self.has_view_permission(request, account):
            raise PermissionDenied
        return account_lines_csv(account)


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
