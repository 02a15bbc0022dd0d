"""The ledger in the back office: everything searchable, nothing editable (append-only).

Adjustments are the one way staff move money: proposed here, approved by someone else.
"""

import itertools
import json

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, StreamingHttpResponse
from django.urls import path, reverse
from django.utils.html import format_html

from core.admin_base import MakerCheckerAdmin, ReadOnlyAdmin, html_table, short_id
from core.csv_export import CsvWriter
from core.errors import ServiceError
from core.times import moment_text
from ledger.admin_money import MoneyField, money_column, money_text
from ledger.models import (
    Account,
    Adjustment,
    AdjustmentStatus,
    EntrySeal,
    JournalEntry,
    Posting,
    VerificationRun,
)
from ledger.money import money_decimal
from ledger.selectors import account_lines
from ledger.services import adjustment_approve, adjustment_propose, adjustment_reject

SUMMARY_COUNTS = (
    ("entries", "journal entries"),
    ("postings", "postings"),
    ("accounts", "accounts"),
    ("unsealed_entries", "entries not sealed yet"),
)
CHECK_WORDS = {
    "entries_balance": "Every entry balances, per currency",
    "entries_have_postings": "Every entry has at least two postings",
    "cached_balances": "Every cached balance equals the sum of its postings",
    "wallets_not_negative": "No wallet or money in play is below zero",
    "hash_chain": "The hash chain links every sealed entry and matches its content",
    "zero_sum_per_currency": "All postings of a currency sum to zero",
}
LINES_SHOWN = 50


def account_lines_html(account: Account) -> str:
    """The account's last lines, newest first in the order its balance changed (each line's balance
    after, less its amount, is the next line's), and a link to all of them as CSV."""
    rows = [
        (
            moment_text(line.entry.created_at),
            line.entry.get_kind_display(),
            money_text(line.signed_amount, line.currency),
            money_text(line.balance_after, line.currency),
            format_html("{} {}", line.entry.reference_type, short_id(line.entry.reference_id))
            if line.entry.reference_id
            else "-",
        )
        for line in account_lines(account=account)[:LINES_SHOWN]
    ]
    table = html_table(("when", "kind", "amount", "balance after", "reference"), rows)
    csv_url = reverse("admin:ledger_account_lines_csv", args=[account.pk])
    return format_html('{}<p><a href="{}">All lines (CSV)</a></p>', table, csv_url)


class _Echo:
    def write(self, value: str) -> str:
        return value


def account_lines_csv(account: Account) -> StreamingHttpResponse:
    """Every line of the account, newest first in the order its balance changed, amounts as decimals
    of major units beside their currency (as the report exports); streamed: a house account has many."""
    writer = CsvWriter(_Echo())
    header = [
        "posting",
        "entry",
        "created_at",
        "kind",
        "reference_type",
        "reference_id",
        "amount",
        "balance_after",
        "currency",
    ]
    rows = (
        [
            line.pk,
            line.entry_id,
            line.entry.created_at.isoformat(),
            line.entry.kind,
            line.entry.reference_type,
            line.entry.reference_id,
            money_decimal(line.signed_amount),
            money_decimal(line.balance_after),
            line.currency,
        ]
        for line in account_lines(account=account).iterator(chunk_size=2000)
    )
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in itertools.chain([header], rows)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="account-{account.pk}-lines.csv"'
    return response


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ("account", "direction", "amount_money", "balance_after_money")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    amount_money = money_column("amount", "amount")
    balance_after_money = money_column("balance_after", "balance after")


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "currency", "owner", "shard", "balance_display")
    list_filter = ("kind", "currency")
    search_fields = ("player__user__username", "partner__name", "=id")
    list_select_related = ("player__user", "partner")

    @admin.display(description="owner")
    def owner(self, obj):
        return obj.player or obj.partner or "system"

    balance_display = money_column("balance", "balance")
    fields = ("kind", "currency", "player", "partner", "shard", "balance_display", "created_at", "lines")
    readonly_fields = ("balance_display", "lines")

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
        "reference",
        "reason",
    )
    list_filter = ("kind", "actor_type", "reference_type")
    search_fields = ("=id", "idempotency_key", "reference_id", "reason", "actor_id")
    date_hierarchy = "created_at"
    inlines = [PostingInline]

    @admin.display(description="reference", ordering="reference_id")
    def reference(self, obj):
        if not obj.reference_id:
            return "-"
        return format_html("{} {}", obj.reference_type, short_id(obj.reference_id))


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("id", "entry", "account", "direction", "amount_money", "balance_after_money")
    list_filter = ("direction", "currency", "account__kind")
    search_fields = ("=entry__id", "=account__id", "account__player__user__username")
    list_select_related = ("entry", "account__player__user", "account__partner")
    amount_money = money_column("amount", "amount")
    balance_after_money = money_column("balance_after", "balance after")
    fields = ("entry", "account", "direction", "amount_money", "balance_after_money")
    readonly_fields = ("amount_money", "balance_after_money")


@admin.register(EntrySeal)
class EntrySealAdmin(ReadOnlyAdmin):
    list_display = ("sequence", "entry", "short_hash", "sealed_at")
    search_fields = ("hash", "=entry__id")

    @admin.display(description="hash", ordering="hash")
    def short_hash(self, obj):
        return short_id(obj.hash)


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "result", "triggered_by", "duration")
    list_filter = ("ok", "triggered_by")
    readonly_fields = ("started_at", "finished_at", "ok", "triggered_by", "summary_pretty")
    exclude = ("summary",)

    @admin.display(description="result", ordering="ok")
    def result(self, obj):
        verdict, text = ("ok", "all invariants hold") if obj.ok else ("problems", "PROBLEMS FOUND")
        return format_html('<strong class="verdict {}">{}</strong>', verdict, text)

    @admin.display(description="duration")
    def duration(self, obj):
        return f"{(obj.finished_at - obj.started_at).total_seconds():.2f} s"

    @admin.display(description="summary")
    def summary_pretty(self, obj):
        summary = obj.summary or {}
        counts = [(label, f"{summary[key]:,}") for key, label in SUMMARY_COUNTS if key in summary]
        checks = []
        for name, check in (summary.get("checks") or {}).items():
            result = "holds" if check.get("ok") else f"{check.get('problems', '?')} problem(s)"
            details = []
            if "sealed" in check:
                details.append(f"{check['sealed']:,} entries sealed")
            for currency, total in sorted((check.get("totals") or {}).items()):
                details.append(f"{currency}: {money_text(total, currency)}")
            examples = ", ".join(json.dumps(example, sort_keys=True) for example in check.get("examples") or [])
            checks.append((CHECK_WORDS.get(name, name), result, "; ".join(details) or "-", examples or "-"))
        return format_html(
            "{}{}",
            html_table(("counted", "number"), counts),
            html_table(("invariant", "result", "details", "examples of problems"), checks),
        )


class AdjustmentForm(forms.ModelForm):
    amount = MoneyField(
        allow_negative=True,
        label="Amount",
        help_text="In the player's currency: 25.00 credits the player, -25.00 debits",
    )

    class Meta:
        model = Adjustment
        fields = ("player", "amount", "reason")


@admin.register(Adjustment)
class AdjustmentAdmin(MakerCheckerAdmin):
    proposed_status = AdjustmentStatus.PROPOSED
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

    amount_display = money_column("amount", "amount")
    readonly_fields = ("amount_display", "status", "proposed_by", "proposed_at", "decided_by", "decided_at", "entry")

    def get_fields(self, request, obj=None):
        if obj is None:
            return self.fields  # a proposal: who, how much, why
        return (
            "player",
            "amount_display",
            "reason",
            "status",
            "proposed_by",
            "proposed_at",
            "decided_by",
            "decided_at",
            "entry",
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = AdjustmentForm
        return super().get_form(request, obj, change, **kwargs)

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

    @admin.action(description="Approve and post the selected adjustments", permissions=["change"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, lambda a, u: adjustment_approve(adjustment=a, approved_by=u), "approved")

    @admin.action(description="Reject the selected adjustments", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda a, u: adjustment_reject(adjustment=a, rejected_by=u), "rejected")
