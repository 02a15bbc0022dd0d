import json
import re

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.models import Player, Transfer
from casino.models import (
    Match,
    Round,
    RoundDecision,
    RoundStatus,
    SeedPair,
    Table,
    TableChange,
    TableChangeStatus,
    WalletCall,
    WalletCallAttempt,
    WebhookAttempt,
    WebhookDelivery,
)
from casino.selectors import round_verification, table_house_edge
from casino.services.tables import (
    TABLE_FIELDS,
    table_change_approve,
    table_change_check,
    table_change_propose,
    table_change_reject,
    table_set_open,
    table_values,
)
from core.admin import AuditEventAdmin as CoreAuditEventAdmin
from core.admin_base import MakerCheckerAdmin, ReadOnlyAdmin, html_table, short_id
from core.errors import ServiceError
from core.models import AuditEvent
from core.times import moment_text
from ledger.admin_money import MoneyField, money_column, money_text
from ledger.selectors import entries_for_reference

SUITS = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}

# Who took a decision, in words (the round stores the kind of actor).
ACTOR_WORDS = {"player": "the player", "partner": "the partner casino", "system": "the house rule (timeout)"}


def _moment(moment, *, after=None) -> str:
    """A moment as operators read it everywhere in the back office, with how long after the previous one."""
    text = moment_text(moment)
    if after is not None:
        text += f" ({(moment - after).total_seconds():.2f} s later)"
    return text


def card_html(code: str):
    """A card as a player sees it: rank and suit symbol, red or black, with its code for search."""
    rank, suit = code[0], code[1:]
    symbol, colour = SUITS.get(suit, (suit, "black"))
    return format_html(
        '<span class="playing-card {}" title="{}">{}{}</span>', colour, code, "10" if rank == "T" else rank, symbol
    )


def rules_table(rules: dict):
    """A round's (or a table's) rules as a small table of words."""
    rows = [
        ("Decks", rules.get("decks", "-")),
        ("Tie bet pays", f"{rules['tie_pays']} to 1" if "tie_pays" in rules else "-"),
        ("Tie-after-tie bonus", "yes" if rules.get("tie_after_tie_bonus") else "no"),
        ("Cards burned before the war cards", rules.get("burn", "-")),
    ]
    persistent = rules.get("shuffle") == "persistent"
    rows.append(("Shoe", "persistent, reshuffled at the cut card" if persistent else "fresh every round"))
    if persistent:
        rows.append(("Penetration (dealt before the cut card)", f"{rules.get('penetration')} %"))
    house_rule = dict(RoundDecision.choices).get(rules.get("house_rule"), "-")
    rows.append(("When the player does not decide in time", house_rule))
    return format_html(
        '<table class="detail-table">{}</table>', format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows)
    )


RULE_FIELDS = ("decks", "burn", "tie_pays", "tie_after_tie_bonus", "shuffle", "penetration", "house_rule")
MONEY_FIELDS = ("min_bet", "max_bet", "bet_step", "max_tie_bet")


class TableChangeForm(forms.ModelForm):
    """A proposal: the table as it is to be (starting from the table's values), bet limits typed as
    money of the table's currency (6.00) and stored in minor units (600), checked as the approval
    will check it (casino/services/tables.py)."""

    min_bet = MoneyField(label="Minimum main bet", currency_hint="the table's currency")
    max_bet = MoneyField(label="Maximum main bet", currency_hint="the table's currency")
    bet_step = MoneyField(label="Bet step", help_text="Every bet is a multiple of this, e.g. 1.00")
    max_tie_bet = MoneyField(label="Maximum tie bet", help_text="0.00: no tie bet at this table")

    class Meta:
        model = TableChange
        fields = ("table", "name", "currency", *MONEY_FIELDS, *RULE_FIELDS, "decision_timeout_s", "reason")

    def clean(self):
        data = super().clean()
        if not self.errors:
            try:
                table_change_check(table=data.get("table"), values={name: data[name] for name in TABLE_FIELDS})
            except ServiceError as exc:
                raise forms.ValidationError(exc.detail) from None
        return data


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    """Tables read as they are; opened and closed by the list's actions. What a table is (its
    rules, limits, name, currency) changes only through a proposal another staff member approves
    (`TableChangeAdmin`), superusers included."""

    list_display = (
        "name",
        "currency",
        "is_open",
        "min_bet_money",
        "max_bet_money",
        "bet_step_money",
        "max_tie_bet_money",
        "decks",
        "house_edge",
    )
    list_filter = ("is_open", "currency", "decks")
    search_fields = ("name",)
    actions = ("open_tables", "close_tables")
    readonly_fields = ("propose",)

    min_bet_money = money_column("min_bet", "minimum bet")
    max_bet_money = money_column("max_bet", "maximum bet")
    bet_step_money = money_column("bet_step", "bet step")
    max_tie_bet_money = money_column("max_tie_bet", "maximum tie bet")

    @admin.display(description="house edge (war)")
    def house_edge(self, obj):
        return f"{table_house_edge(table=obj)['war'] * 100:.4f} %"

    @admin.display(description="changes (maker-checker)")
    def propose(self, obj):
        changes = reverse("admin:casino_tablechange_changelist") + f"?table__id__exact={obj.pk}"
        new = reverse("admin:casino_tablechange_add") + f"?table={obj.pk}"
        return format_html(
            '<a href="{}">Propose new rules or limits</a> · <a href="{}">every change proposed</a>', new, changes
        )

    def has_add_permission(self, request):
        return False  # a new table is a proposal too (TableChangeAdmin)

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)  # the actions

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Open the selected tables", permissions=["change"])
    def open_tables(self, request, queryset):
        for table in queryset:
            try:
                table_set_open(table=table, is_open=True, by_user=request.user)
            except ServiceError as exc:
                self.message_user(request, exc.detail, messages.ERROR)

    @admin.action(description="Close the selected tables", permissions=["change"])
    def close_tables(self, request, queryset):
        for table in queryset:
            table_set_open(table=table, is_open=False, by_user=request.user)


def _changed_words(before: dict | None, after: dict) -> str:
    """What a table change changes, in words ("tie pays: 10 -> 30"); all of it for a new table."""
    shown = {name: value for name, value in after.items() if before is None or before.get(name) != value}
    currency = after.get("currency", "EUR")
    words = []
    for name, value in shown.items():
        was = None if before is None else before.get(name)
        if name in MONEY_FIELDS[:4]:
            value, was = money_text(value, currency), None if was is None else money_text(was, currency)
        label = name.replace("_", " ")
        words.append(f"{label}: {value}" if was is None else f"{label}: {was} → {value}")
    return "; ".join(words) or "-"


@admin.register(TableChange)
class TableChangeAdmin(MakerCheckerAdmin):
    """Proposed here (the form starts from the table's values), approved or rejected by another
    staff member with the list's actions; nothing proposed is ever edited or deleted."""

    proposed_status = TableChangeStatus.PROPOSED
    form = TableChangeForm
    list_display = ("id", "table_name", "what", "reason", "status", "proposed_by", "decided_by", "decided_at")
    list_filter = ("status", "table")
    search_fields = ("name", "reason")
    actions = ("approve_selected", "reject_selected")

    @admin.display(description="table")
    def table_name(self, obj):
        return obj.table.name if obj.table_id else f"new: {obj.name}"

    @admin.display(description="what changes (before → after)")
    def what(self, obj):
        return _changed_words(obj.before, {name: getattr(obj, name) for name in TABLE_FIELDS})

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        table_id = str(initial.get("table", ""))
        table = Table.objects.filter(pk=int(table_id)).first() if re.fullmatch(r"[0-9]{1,18}", table_id) else None
        if table is not None:
            initial.update(table_values(table))
        return initial

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            created = table_change_propose(
                table=obj.table,
                values={name: getattr(obj, name) for name in TABLE_FIELDS},
                reason=obj.reason,
                proposed_by=request.user,
            )
        except ServiceError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
            return
        obj.pk = created.pk

    @admin.action(description="Approve and apply the selected table changes", permissions=["change"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, lambda c, u: table_change_approve(change=c, approved_by=u), "approved")

    @admin.action(description="Reject the selected table changes", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda c, u: table_change_reject(change=c, rejected_by=u), "rejected")


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("round_id", "created", "player", "table", "status_words", "outcome_words", "bets", "net_money")
    list_filter = ("status", "outcome", "decision", "decision_timed_out", "table")
    search_fields = ("=id", "player__user__username", "player__external_id")
    date_hierarchy = "created_at"
    list_select_related = ("player__user", "table")
    fieldsets = (
        ("Round", {"fields": ("id", "player", "table", "status_words", "timeline")}),
        ("Bets and result", {"fields": ("bets_and_result",)}),
        ("Rules the round was played to", {"fields": ("rules_words",)}),
        ("Cards", {"fields": ("cards",)}),
        ("Decision", {"fields": ("decision_words",)}),
        ("Fairness", {"fields": ("fairness",)}),
        ("Money", {"fields": ("ledger_entries", "settle_attempts", "wallet_calls", "partner_webhook")}),
    )
    readonly_fields = (
        "status_words",
        "timeline",
        "bets_and_result",
        "rules_words",
        "cards",
        "decision_words",
        "fairness",
        "ledger_entries",
        "wallet_calls",
        "partner_webhook",
    )

    @admin.display(description="round", ordering="id")
    def round_id(self, obj):
        return short_id(obj.id)

    @admin.display(description="placed", ordering="created_at")
    def created(self, obj):
        return format_html('<span class="nowrap">{}</span>', moment_text(obj.created_at))

    @admin.display(description="status", ordering="status")
    def status_words(self, obj):
        return obj.get_status_display()

    @admin.display(description="outcome", ordering="outcome")
    def outcome_words(self, obj):
        return obj.get_outcome_display() or "-"

    @admin.display(description="bets (main, tie)")
    def bets(self, obj):
        text = money_text(obj.main_bet, obj.currency)
        if obj.raise_bet:
            text += f" + war {money_text(obj.raise_bet, obj.currency)}"
        if obj.tie_bet:
            text += f", tie {money_text(obj.tie_bet, obj.currency)}"
        return format_html('<span class="nowrap">{}</span>', text)

    net_money = money_column("net", "player's net")

    @admin.display(description="when")
    def timeline(self, obj):
        rows = [("placed", _moment(obj.created_at))]
        if obj.resolved_at:
            rows.append(("outcome known", _moment(obj.resolved_at, after=obj.created_at)))
        if obj.settled_at:
            rows.append(("settled", _moment(obj.settled_at, after=obj.resolved_at)))
        return format_html(
            '<table class="detail-table">{}</table>', format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", rows)
        )

    @admin.display(description="bets and what each returned")
    def bets_and_result(self, obj):
        nets = obj.nets or {}
        decided = obj.status != RoundStatus.AWAITING_DECISION
        rows = [
            (
                "Main bet",
                money_text(obj.main_bet, obj.currency),
                money_text(nets.get("main"), obj.currency) if decided else "waiting for the decision",
            ),
        ]
        if obj.raise_bet:
            rows.append(
                ("War raise", money_text(obj.raise_bet, obj.currency), money_text(nets.get("raise"), obj.currency))
            )
        if obj.tie_bet:
            rows.append(("Tie bet", money_text(obj.tie_bet, obj.currency), money_text(nets.get("tie"), obj.currency)))
        if nets.get("bonus"):
            rows.append(("Tie-after-tie bonus", "-", money_text(nets["bonus"], obj.currency)))
        rows.append(
            (
                format_html("<strong>{}</strong>", "Total"),
                money_text(obj.main_bet + obj.raise_bet + obj.tie_bet, obj.currency),
                format_html("<strong>{}</strong>", money_text(obj.net, obj.currency)),
            )
        )
        table = html_table(("bet", "staked", "player's net"), rows)
        outcome = obj.get_outcome_display() or "Not decided yet"
        paid = "" if obj.payout is None else f"; paid back to the wallet: {money_text(obj.payout, obj.currency)}"
        return format_html("<p>{}{}</p>{}", outcome, paid, table)

    @admin.display(description="rules")
    def rules_words(self, obj):
        return rules_table(obj.rules or {})

    @admin.display(description="decision")
    def decision_words(self, obj):
        if not obj.decision:
            if obj.status == RoundStatus.AWAITING_DECISION:
                return f"waiting for the player's decision until {moment_text(obj.decision_deadline)}"
            return "none needed (no tie)"
        by = ACTOR_WORDS.get(obj.decided_by_type, obj.decided_by_type)
        when = f" at {moment_text(obj.decided_at)}" if obj.decided_at else ""
        timed_out = ", the player did not decide in time" if obj.decision_timed_out else ""
        return f"{obj.get_decision_display()}, by {by}{when}{timed_out}"

    @admin.display(description="cards")
    def cards(self, obj):
        rows = [("Player", card_html(obj.player_card)), ("Dealer", card_html(obj.dealer_card))]
        if obj.burned:
            rows.append(("Burned", format_html_join(" ", "{}", ((card_html(c),) for c in obj.burned.split()))))
        if obj.war_player_card:
            rows += [
                ("Player's war card", card_html(obj.war_player_card)),
                ("Dealer's war card", card_html(obj.war_dealer_card)),
            ]
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
                        f"#{entry.pk}",
                        entry.get_kind_display(),
                        posting.account,
                        posting.get_direction_display(),
                        money_text(posting.amount, posting.currency),
                        money_text(posting.balance_after, posting.currency),
                    )
                )
        return html_table(("entry", "kind", "account", "side", "amount", "balance after"), rows)

    @admin.display(description="seamless wallet calls")
    def wallet_calls(self, obj):
        if not obj.seamless:
            return "none (the player's money is in our wallet)"
        rows = [
            (
                format_html(
                    '<a href="{}">{}</a>', reverse("admin:casino_walletcall_change", args=[c.pk]), c.transaction_id
                ),
                c.kind,
                money_text(c.amount, c.currency),
                c.get_status_display(),
                c.attempts,
                f"{c.latency_ms} ms" if c.latency_ms is not None else "-",
            )
            for c in WalletCall.objects.filter(round_id=obj.pk).order_by("created_at")
        ]
        return html_table(("transaction id", "call", "amount", "status", "attempts", "latency"), rows)

    @admin.display(description="partner webhook")
    def partner_webhook(self, obj):
        delivery = WebhookDelivery.objects.filter(round=obj).first()
        if delivery is None:
            return "none (not a partner's player, or no webhook URL)"
        attempts = [
            (moment_text(a.attempted_at), a.status_code or "-", a.error or "") for a in delivery.attempt_log.all()
        ]
        return format_html(
            "<div>event <code>{}</code>: {}</div>{}",
            delivery.id,
            "delivered" if delivery.delivered_at else f"pending, next attempt {moment_text(delivery.next_attempt_at)}",
            html_table(("attempted", "answer", "error"), attempts, empty="no attempt yet"),
        )


@admin.register(SeedPair)
class SeedPairAdmin(ReadOnlyAdmin):
    list_display = ("player", "seed_hash", "client_seed", "next_nonce", "active", "created_at", "revealed_at")
    list_filter = ("active",)
    search_fields = ("player__user__username", "server_seed_hash")
    # The server seed stays secret until the player rotates it, from staff too; so does the next one.
    exclude = ("server_seed", "next_server_seed")
    readonly_fields = ("revealed_server_seed",)

    @admin.display(description="server seed hash", ordering="server_seed_hash")
    def seed_hash(self, obj):
        return short_id(obj.server_seed_hash)

    @admin.display(description="server seed")
    def revealed_server_seed(self, obj):
        return obj.server_seed if obj.revealed_at else "secret until the player rotates"


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    """War games played for fun (no money): who dealt them, with which seed and decisions."""

    list_display = ("match_id", "preset", "player", "status", "human_seat", "created_at", "finished_at")
    list_filter = ("preset", "status")
    search_fields = ("id", "player__user__username", "server_seed_hash")
    exclude = ("server_seed",)
    readonly_fields = ("revealed_server_seed",)

    @admin.display(description="match", ordering="id")
    def match_id(self, obj):
        return short_id(obj.id)

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


class DeliveryStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("failing", "Failing (undelivered, tried)"), ("pending", "Undelivered"), ("delivered", "Delivered")]

    def queryset(self, request, queryset):
        if self.value() == "failing":
            return queryset.filter(delivered_at__isnull=True, attempts__gt=0)
        if self.value() == "pending":
            return queryset.filter(delivered_at__isnull=True)
        if self.value() == "delivered":
            return queryset.filter(delivered_at__isnull=False)
        return queryset


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ("event_id", "partner", "round_id", "attempts", "last_answer", "delivered_at", "next_attempt_at")
    list_filter = (DeliveryStateFilter, "partner")
    search_fields = ("=id", "=round__id")
    list_select_related = ("partner",)
    exclude = ("payload",)
    readonly_fields = ("payload_sent",)
    inlines = [WebhookAttemptInline]

    @admin.display(description="event", ordering="id")
    def event_id(self, obj):
        return short_id(obj.id)

    @admin.display(description="round", ordering="round_id")
    def round_id(self, obj):
        return short_id(obj.round_id)

    @admin.display(description="last answer")
    def last_answer(self, obj):
        if obj.last_status_code:
            return f"HTTP {obj.last_status_code}"
        return obj.last_error or "-"

    @admin.display(description="payload (the JSON body POSTed to the partner, as signed)")
    def payload_sent(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.payload, indent=2, sort_keys=True))


class WalletCallAttemptInline(admin.TabularInline):
    model = WalletCallAttempt
    fields = ("attempted_at", "status_code", "duration_ms", "answer", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WalletCall)
class WalletCallAdmin(ReadOnlyAdmin):
    """Every call to a seamless partner's wallet that moves money: what was sent, what it answered,
    each attempt and how long it took (API.md "Seamless wallet")."""

    list_display = (
        "transaction_id",
        "kind",
        "purpose",
        "partner",
        "player",
        "call_amount",
        "status",
        "attempts",
        "last_answer",
        "latency",
        "created_at",
        "answered_at",
    )
    list_filter = ("status", "kind", "partner")
    search_fields = ("=transaction_id", "=round_id", "player__external_id")
    list_select_related = ("partner", "player__user")
    date_hierarchy = "created_at"
    fields = (
        "transaction_id",
        "kind",
        "purpose",
        "partner",
        "player",
        "round_link",
        "call_amount",
        "status",
        "reference",
        "attempts",
        "last_status_code",
        "last_error",
        "latency",
        "partner_balance_text",
        "request_sent",
        "answer_received",
        "next_attempt_at",
        "created_at",
        "answered_at",
    )
    readonly_fields = (
        "round_link",
        "call_amount",
        "latency",
        "partner_balance_text",
        "request_sent",
        "answer_received",
    )
    inlines = [WalletCallAttemptInline]

    @admin.display(description="amount", ordering="amount")
    def call_amount(self, obj):
        return money_text(obj.amount, obj.currency)

    @admin.display(description="partner's balance after")
    def partner_balance_text(self, obj):
        return "-" if obj.partner_balance is None else money_text(obj.partner_balance, obj.currency)

    @admin.display(description="latency", ordering="latency_ms")
    def latency(self, obj):
        return "-" if obj.latency_ms is None else f"{obj.latency_ms} ms"

    @admin.display(description="last answer")
    def last_answer(self, obj):
        if obj.last_status_code:
            return f"HTTP {obj.last_status_code}"
        return obj.last_error or "-"

    @admin.display(description="round")
    def round_link(self, obj):
        if not Round.objects.filter(pk=obj.round_id).exists():
            return f"{obj.round_id} (not placed)"
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:casino_round_change", args=[obj.round_id]), obj.round_id
        )

    @admin.display(description="request (the JSON body POSTed to the wallet, as signed)")
    def request_sent(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.request_body, indent=2, sort_keys=True))

    @admin.display(description="answer (of the last attempt)")
    def answer_received(self, obj):
        return format_html("<pre>{}</pre>", obj.last_answer or "-")


# The audit log records amounts as the facts it was given (minor units, without their currency);
# here, the top of the apps, an event's page writes them as money of the object it concerns.
AUDITED_AMOUNTS = {"amount", "main_bet", "tie_bet", "raise_bet"}
CURRENCY_OF = {"round": Round, "transfer": Transfer, "player": Player}


def audit_event_currency(event: AuditEvent) -> str | None:
    model = CURRENCY_OF.get(event.object_type)
    if model is None:
        return None
    try:
        return model.objects.filter(pk=event.object_id).values_list("currency", flat=True).first()
    except (ValueError, ValidationError):  # an object id of another form: no currency to tell
        return None


admin.site.unregister(AuditEvent)


@admin.register(AuditEvent)
class AuditEventAdmin(CoreAuditEventAdmin):
    list_display = ("created_at", "actor_type", "actor_id", "action", "object_type", "object")
    fields = ("created_at", "actor_type", "actor_id", "action", "object_type", "object_id", "details")
    readonly_fields = ("details",)

    @admin.display(description="object", ordering="object_id")
    def object(self, obj):
        return short_id(obj.object_id)

    @admin.display(description="details")
    def details(self, obj):
        currency = audit_event_currency(obj) if AUDITED_AMOUNTS & set(obj.data or {}) else None
        rows = []
        for key, value in (obj.data or {}).items():
            if key in AUDITED_AMOUNTS and isinstance(value, int) and currency:
                value = money_text(value, currency)
            elif isinstance(value, bool):
                value = "yes" if value else "no"
            rows.append((key.replace("_", " "), "-" if value is None else value))
        return html_table(("detail", "value"), rows)
