from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils.html import format_html

from accounts.models import Partner, Player, User
from core.admin_base import html_table, short_id
from ledger.admin_money import money_text
from ledger.selectors import account_lines, player_wallet_summary
from ledger.services import player_accounts_open


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "is_staff", "is_active", "last_login")


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ("name", "key_id", "webhook_url", "is_active", "created_at")
    search_fields = ("name", "key_id")
    # The secret is shown once, by `partner_create`; the admin never displays it.
    exclude = ("secret",)
    readonly_fields = ("key_id", "created_at")

    def has_add_permission(self, request):
        return False  # partners are created with `manage.py partner_create`, which prints the secret once


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """One page per player: wallet and its lines, rounds, partner, limits, exclusions, adjustments."""

    list_display = ("user", "partner", "external_id", "currency", "created_at")
    list_filter = ("partner", "currency")
    search_fields = ("user__username", "external_id", "user__email")
    readonly_fields = ("created_at", "wallet", "wallet_lines", "recent_rounds", "limits", "exclusions", "adjustments")
    raw_id_fields = ("user",)
    fieldsets = (
        (None, {"fields": ("user", "partner", "external_id", "currency", "created_at")}),
        ("Wallet", {"fields": ("wallet", "wallet_lines")}),
        ("Play", {"fields": ("recent_rounds",)}),
        ("Protection", {"fields": ("limits", "exclusions")}),
        ("Adjustments (maker-checker)", {"fields": ("adjustments",)}),
    )

    @admin.display(description="balance")
    def wallet(self, obj):
        summary = player_wallet_summary(player=obj)
        available, in_play = money_text(summary["balance"], obj.currency), money_text(summary["in_play"], obj.currency)
        return f"{available} available, {in_play} in play"

    @admin.display(description="last 50 wallet lines (running balance)")
    def wallet_lines(self, obj):
        wallet, _ = player_accounts_open(player=obj)
        rows = [
            (line.entry.created_at.strftime("%Y-%m-%d %H:%M:%S"), line.entry.get_kind_display(),
             money_text(line.signed_amount, line.currency), money_text(line.balance_after, line.currency),
             format_html("{} {}", line.entry.reference_type, short_id(line.entry.reference_id))
             if line.entry.reference_id else "-")
            for line in account_lines(account=wallet)[:50]
        ]  # fmt: skip
        return html_table(("when", "kind", "amount", "balance after", "reference"), rows)

    @admin.display(description="last 20 rounds")
    def recent_rounds(self, obj):
        rows = [
            (format_html('<a href="{}">{}</a>', reverse("admin:casino_round_change", args=[r.pk]), short_id(r.pk)),
             r.created_at.strftime("%Y-%m-%d %H:%M:%S"), r.table.name, r.get_status_display(),
             r.get_outcome_display() or "-", money_text(r.main_bet + r.tie_bet + r.raise_bet,
             r.currency), money_text(r.net, r.currency))
            for r in obj.rounds.select_related("table").order_by("-created_at")[:20]
        ]  # fmt: skip
        return html_table(("round", "when", "table", "status", "outcome", "staked", "net"), rows)

    @admin.display(description="limits (history)")
    def limits(self, obj):
        rows = [
            (limit.get_kind_display(), limit.get_period_display(),
             money_text(limit.amount, obj.currency) if limit.amount is not None else "no limit",
             limit.requested_at.strftime("%Y-%m-%d %H:%M"), limit.effective_from.strftime("%Y-%m-%d %H:%M"),
             limit.requested_by_type)
            for limit in obj.limits.all()[:50]
        ]  # fmt: skip
        return html_table(("kind", "period", "amount", "requested", "in force from", "by"), rows)

    @admin.display(description="time-outs and self-exclusions")
    def exclusions(self, obj):
        rows = [(e.get_kind_display(), e.starts_at.strftime("%Y-%m-%d %H:%M"), e.ends_at.strftime("%Y-%m-%d %H:%M"))
                for e in obj.exclusions.all()]  # fmt: skip
        return html_table(("kind", "from", "until"), rows)

    @admin.display(description="proposed and decided")
    def adjustments(self, obj):
        adjustments = obj.adjustments.select_related("proposed_by", "decided_by")
        rows = [(a.proposed_at.strftime("%Y-%m-%d %H:%M"), money_text(a.amount, a.currency), a.reason,
                 a.get_status_display(), a.proposed_by, a.decided_by or "-") for a in adjustments]  # fmt: skip
        return html_table(("proposed", "amount", "reason", "status", "maker", "checker"), rows)
