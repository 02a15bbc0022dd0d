from django.contrib import admin
from django.utils.html import format_html, format_html_join

from casino.models import Match, Round, SeedPair, Table, WebhookAttempt, WebhookDelivery
from casino.selectors import round_verification, table_house_edge
from casino.services.tables import table_set_open
from core.admin_base import ReadOnlyAdmin
from ledger.selectors import entries_for_reference

SUITS = {"S": ("♠", "#111"), "H": ("♥", "#c00"), "D": ("♦", "#c00"), "C": ("♣", "#111")}


def card_html(code: str):
    """A card as a player sees it: rank and suit symbol, red or black, with its code for search."""
    rank, suit = code[0], code[1:]
    symbol, colour = SUITS.get(suit, (suit, "#111"))
    return format_html(
        '<span title="{}" style="display:inline-block;min-width:2.2em;padding:.1em .3em;border:1px solid #999;'
        'border-radius:4px;background:#fff;color:{};font-weight:bold;text-align:center">{}{}</span>',
        code,
        colour,
        "10" if rank == "T" else rank,
        symbol,
    )


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
        for table in queryset:
            table_set_open(table=table, is_open=True, by_user=request.user)

    @admin.action(description="Close the selected tables", permissions=["change"])
    def close_tables(self, request, queryset):
        for table in queryset:
            table_set_open(table=table, is_open=False, by_user=request.user)


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "created_at",
        "player",
        "table",
        "status",
        "outcome",
        "main_bet",
        "tie_bet",
        "net",
        "decision",
    )
    list_filter = ("status", "outcome", "decision", "decision_timed_out", "table")
    search_fields = ("=id", "player__user__username", "player__external_id")
    date_hierarchy = "created_at"
    list_select_related = ("player__user", "table")
    fieldsets = (
        (
            "Round",
            {
                "fields": (
                    "id",
                    "player",
                    "table",
                    "status",
                    "currency",
                    "rules",
                    "created_at",
                    "resolved_at",
                    "settled_at",
                )
            },
        ),
        ("Bets and result", {"fields": ("main_bet", "tie_bet", "raise_bet", "outcome", "nets", "net", "payout")}),
        ("Cards", {"fields": ("cards",)}),
        (
            "Decision",
            {
                "fields": (
                    "decision",
                    "decided_by_type",
                    "decided_by_id",
                    "decided_at",
                    "decision_deadline",
                    "decision_timed_out",
                )
            },
        ),
        ("Fairness", {"fields": ("fairness",)}),
        ("Money", {"fields": ("ledger_entries", "settle_attempts", "webhook")}),
    )
    readonly_fields = ("cards", "fairness", "ledger_entries", "webhook")

    @admin.display(description="cards")
    def cards(self, obj):
        rows = [("Player", card_html(obj.player_card)), ("Dealer", card_html(obj.dealer_card))]
        if obj.burned:
            rows.append(("Burned", format_html_join(" ", "{}", ((card_html(c),) for c in obj.burned.split()))))
        if obj.war_player_card:
            rows += [("Player's war card", card_html(obj.war_player_card)),
                     ("Dealer's war card", card_html(obj.war_dealer_card))]  # fmt: skip
        return format_html_join("", "<div><strong>{}</strong>: {}</div>", rows)

    @admin.display(description="seed pair and verification")
    def fairness(self, obj):
        pair = obj.seed_pair
        parts = [
            ("Server seed hash", pair.server_seed_hash),
            ("Client seed", pair.client_seed),
            ("Nonce", obj.nonce),
        ]
        if pair.revealed_at is None:
            parts.append(("Server seed", "not revealed yet (the player has not rotated)"))
            return format_html_join("", "<div><strong>{}</strong>: <code>{}</code></div>", parts)
        verdict = round_verification(obj)
        parts += [("Server seed", pair.server_seed), ("Verification", verdict)]
        return format_html_join("", "<div><strong>{}</strong>: <code>{}</code></div>", parts)

    @admin.display(description="ledger entries")
    def ledger_entries(self, obj):
        rows = []
        for entry in entries_for_reference(reference_type="round", reference_id=str(obj.id)):
            for posting in entry.postings.all():
                rows.append(
                    (
                        entry.pk,
                        entry.kind,
                        posting.account,
                        posting.get_direction_display(),
                        posting.amount,
                        posting.balance_after,
                    )
                )
        if not rows:
            return "none"
        return format_html(
            "<table><tr><th>entry</th><th>kind</th><th>account</th><th>side</th><th>amount</th>"
            "<th>balance after</th></tr>{}</table>",
            format_html_join("", "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    @admin.display(description="partner webhook")
    def webhook(self, obj):
        delivery = WebhookDelivery.objects.filter(round=obj).first()
        if delivery is None:
            return "none (not a partner's player, or no webhook URL)"
        attempts = [(a.attempted_at, a.status_code or "-", a.error or "") for a in delivery.attempt_log.all()]
        return format_html(
            "<div>event <code>{}</code>: {}</div><ul>{}</ul>",
            delivery.id,
            "delivered" if delivery.delivered_at else f"pending, next attempt {delivery.next_attempt_at:%H:%M:%S}",
            format_html_join("", "<li>{} → {} {}</li>", attempts),
        )


@admin.register(SeedPair)
class SeedPairAdmin(ReadOnlyAdmin):
    list_display = ("player", "server_seed_hash", "client_seed", "next_nonce", "active", "created_at", "revealed_at")
    list_filter = ("active",)
    search_fields = ("player__user__username", "server_seed_hash")
    # The server seed stays secret until the player rotates it, from staff too; so does the next one.
    exclude = ("server_seed", "next_server_seed")
    readonly_fields = ("revealed_server_seed",)

    @admin.display(description="server seed")
    def revealed_server_seed(self, obj):
        return obj.server_seed if obj.revealed_at else "secret until the player rotates"


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    """War games played for fun (no money): who dealt them, with which seed and decisions."""

    list_display = ("id", "preset", "player", "status", "human_seat", "created_at", "finished_at")
    list_filter = ("preset", "status")
    search_fields = ("id", "player__user__username", "server_seed_hash")
    exclude = ("server_seed",)
    readonly_fields = ("revealed_server_seed",)

    @admin.display(description="server seed")
    def revealed_server_seed(self, obj):
        return obj.server_seed if obj.finished_at or obj.human_seat is None else "secret until the game ends"


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = ("attempted_at", "status_code", "error", "duration_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ("id", "partner", "round", "attempts", "last_status_code", "delivered_at", "next_attempt_at")
    list_filter = ("partner", ("delivered_at", admin.EmptyFieldListFilter))
    search_fields = ("=id", "=round__id")
    inlines = [WebhookAttemptInline]
