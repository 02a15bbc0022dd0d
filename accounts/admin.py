import re

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import PermissionDenied
from django.db import models
from django.urls import reverse
from django.utils.html import format_html
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.credentials import credential_reset_approve, credential_reset_propose, credential_reset_reject
from accounts.game_sessions import (
    game_session_end,
    game_session_end_reason,
    partner_origin_change_approve,
    partner_origin_change_propose,
    partner_origin_change_reject,
)
from accounts.identity import (
    player_identity_change_approve,
    player_identity_change_check,
    player_identity_change_propose,
    player_identity_change_reject,
)
from accounts.models import (
    CredentialReset,
    CredentialResetStatus,
    GameSession,
    GameSessionEnd,
    IdentityChangeStatus,
    Partner,
    PartnerOriginChange,
    Player,
    PlayerIdentityChange,
    User,
)
from accounts.origins import origins_check
from core.actors import Actor
from core.admin_base import MakerCheckerAdmin, ReadOnlyAdmin, html_table, short_id
from core.errors import ServiceError
from core.times import moment_text
from ledger.admin import LINES_SHOWN, account_lines_html
from ledger.admin_money import money_text
from ledger.money import CURRENCIES
from ledger.selectors import player_wallet_summary
from ledger.services import player_accounts_open


class StaffUserChangeForm(UserChangeForm):
    """Django's form, with a password that is never set here (its link would open the page that sets one)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        password = self.fields.get("password")
        if password is not None:
            password.help_text = (
                "Nobody sets another's password here. Your own: 'Change password' at the top. A colleague's: "
                "propose a reset of it (below), which another staff member approves; they are e-mailed a link."
            )


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Logins. Nobody, superusers included, sets another's password here (Django's page for it is
    refused) or changes where another staff member's reset links go (their name and e-mail):
    a reset is a CredentialReset, proposed by one, approved by another, told to the one concerned."""

    form = StaffUserChangeForm
    list_display = ("username", "email", "is_staff", "is_active", "last_login")

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        if obj is not None and (obj.is_staff or obj.is_superuser) and obj.pk != request.user.pk:
            return (*fields, "username", "email", "credentials")
        return (*fields, "credentials") if obj is not None else fields

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or not (obj.is_staff or obj.is_superuser):
            return fieldsets
        return (*fieldsets, ("Password and second factor (four eyes)", {"fields": ("credentials",)}))

    @admin.display(description="resets")
    def credentials(self, obj):
        devices = TOTPDevice.objects.filter(user=obj, confirmed=True).count()
        propose = reverse("admin:accounts_credentialreset_add") + f"?user={obj.pk}"
        return format_html(
            '{} authenticator(s) enrolled · <a href="{}">Propose a reset of the password or second factor</a>',
            devices,
            propose,
        )

    def user_change_password(self, request, id, form_url=""):
        raise PermissionDenied("Nobody sets another's password here: propose a reset (four eyes).")


# The second factors: which staff member holds one and when it was last used, never its secret
# (no key, no QR code, no way to add one: a key read or set here signs in as its owner). Enrolled by
# `manage.py staff_totp`; revoked by an approved CredentialReset.
if admin.site.is_registered(TOTPDevice):  # django-otp's own (autodiscovered first: INSTALLED_APPS order)
    admin.site.unregister(TOTPDevice)


@admin.register(TOTPDevice)
class StaffAuthenticatorAdmin(ReadOnlyAdmin):
    list_display = ("user", "name", "confirmed", "created_at", "last_used_at")
    list_filter = ("confirmed",)
    search_fields = ("user__username",)
    fields = ("user", "name", "confirmed", "created_at", "last_used_at")
    readonly_fields = fields


class CredentialResetForm(forms.ModelForm):
    class Meta:
        model = CredentialReset
        fields = ("user", "kind", "reason")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "user" in self.fields:
            self.fields["user"].queryset = User.objects.filter(models.Q(is_staff=True) | models.Q(is_superuser=True))


@admin.register(CredentialReset)
class CredentialResetAdmin(MakerCheckerAdmin):
    """Resets of a staff member's password or second factor: proposed here, decided by a staff
    member who neither proposed it nor is concerned; nothing proposed is edited or deleted."""

    proposed_status = CredentialResetStatus.PROPOSED
    form = CredentialResetForm
    list_display = ("id", "user", "kind", "reason", "status", "proposed_by", "decided_by", "decided_at")
    list_filter = ("status", "kind")
    search_fields = ("user__username", "reason")
    actions = ("approve_selected", "reject_selected")

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            created = credential_reset_propose(
                user=obj.user, kind=obj.kind, reason=obj.reason, proposed_by=request.user
            )
        except ServiceError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
            return
        obj.pk = created.pk

    @admin.action(description="Approve and apply the selected resets", permissions=["change"])
    def approve_selected(self, request, queryset):
        def approve(reset, staff):
            return credential_reset_approve(reset=reset, approved_by=staff, base_url=request.build_absolute_uri("/"))

        self._decide(request, queryset, approve, "approved")

    @admin.action(description="Reject the selected resets", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda r, u: credential_reset_reject(reset=r, rejected_by=u), "rejected")


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ("name", "key_id", "mode", "wallet_url", "webhook_url", "is_active", "created_at")
    search_fields = ("name", "key_id")
    # The secret is shown once, by `partner_create`; the admin never displays it.
    exclude = ("secret",)
    # The wallet mode is chosen when the partner is made: switching it would strand the money of
    # its players on one side or the other.
    readonly_fields = ("key_id", "mode", "wallet_url", "wallet_calls", "framing", "game_sessions", "created_at")
    # A webhook URL typed without a scheme is an https one (Django 6's default, stated now).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    @admin.display(description="wallet")
    def mode(self, obj):
        if obj.is_seamless:
            return "seamless (the partner keeps the money; the service calls its wallet)"
        return "transfer (the partner moves money into our wallet)"

    @admin.display(description="wallet calls")
    def wallet_calls(self, obj):
        if not obj.is_seamless:
            return "-"
        calls = reverse("admin:casino_walletcall_changelist") + f"?partner__id__exact={obj.pk}"
        day = reverse("wallet-reconciliation") + f"?partner={obj.pk}"
        return format_html(
            '<a href="{}">every call to its wallet</a> · <a href="{}">reconciliation of a day</a>', calls, day
        )

    @admin.display(description="origins that may frame its game sessions")
    def framing(self, obj):
        rows = [(origin,) for origin in obj.origins]
        table = html_table(("origin",), rows, empty="none: its game sessions open in a window of their own")
        changes = reverse("admin:accounts_partneroriginchange_changelist") + f"?partner__id__exact={obj.pk}"
        propose = reverse("admin:accounts_partneroriginchange_add") + f"?partner={obj.pk}"
        return format_html(
            '{}<p><a href="{}">Propose a change (maker-checker)</a> · <a href="{}">changes proposed and '
            "decided</a></p>",
            table,
            propose,
            changes,
        )

    @admin.display(description="game sessions")
    def game_sessions(self, obj):
        url = reverse("admin:accounts_gamesession_changelist") + f"?partner__id__exact={obj.pk}"
        return format_html('<a href="{}">its players\' game sessions</a>', url)

    def has_add_permission(self, request):
        return False  # partners are created with `manage.py partner_create`, which prints the secret once


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """One page per player: wallet and its lines, rounds, partner, limits, exclusions, adjustments.

    Read-only for every role, superusers too: whose a player is (its login, partner, external id)
    and its currency change only through a maker-checker identity change (accounts/identity.py),
    money only through adjustments; players are made by sign-up and by partners."""

    list_display = ("user", "partner", "external_id", "currency", "created_at")
    list_filter = ("partner", "currency")
    search_fields = ("user__username", "external_id", "user__email")
    readonly_fields = (
        "created_at",
        "confirmations",
        "wallet",
        "wallet_lines",
        "recent_rounds",
        "limits",
        "exclusions",
        "adjustments",
        "identity_changes",
    )
    fieldsets = (
        (None, {"fields": ("user", "partner", "external_id", "currency", "created_at", "confirmations")}),
        ("Wallet", {"fields": ("wallet", "wallet_lines")}),
        ("Play", {"fields": ("recent_rounds",)}),
        ("Protection", {"fields": ("limits", "exclusions")}),
        ("Adjustments (maker-checker)", {"fields": ("adjustments",)}),
        ("Identity changes (maker-checker)", {"fields": ("identity_changes",)}),
    )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="confirmed at sign-up")
    def confirmations(self, obj):
        if obj.partner_id is not None:
            return "nothing asked here: a partner's player (its casino asks)"
        age = (
            f"{obj.age_confirmed_minimum} or older, {moment_text(obj.age_confirmed_at)}"
            if obj.age_confirmed_at
            else "age not confirmed"
        )
        terms = (
            f"terms version {obj.terms_version}, {moment_text(obj.terms_accepted_at)}"
            if obj.terms_accepted_at
            else "terms not accepted"
        )
        return f"{age}; {terms}"

    @admin.display(description="balance")
    def wallet(self, obj):
        summary = player_wallet_summary(player=obj)
        available, in_play = money_text(summary["balance"], obj.currency), money_text(summary["in_play"], obj.currency)
        return f"{available} available, {in_play} in play"

    @admin.display(description=f"last {LINES_SHOWN} wallet lines (running balance)")
    def wallet_lines(self, obj):
        wallet, _ = player_accounts_open(player=obj)
        return account_lines_html(wallet)

    @admin.display(description="last 20 rounds")
    def recent_rounds(self, obj):
        rows = [
            (
                format_html('<a href="{}">{}</a>', reverse("admin:casino_round_change", args=[r.pk]), short_id(r.pk)),
                moment_text(r.created_at),
                r.table.name,
                r.get_status_display(),
                r.get_outcome_display() or "-",
                money_text(r.main_bet + r.tie_bet + r.raise_bet, r.currency),
                money_text(r.net, r.currency),
            )
            for r in obj.rounds.select_related("table").order_by("-created_at")[:20]
        ]
        return html_table(("round", "when", "table", "status", "outcome", "staked", "net"), rows)

    @admin.display(description="limits (history)")
    def limits(self, obj):
        rows = [
            (
                limit.get_kind_display(),
                limit.get_period_display(),
                money_text(limit.amount, obj.currency) if limit.amount is not None else "no limit",
                moment_text(limit.requested_at),
                moment_text(limit.effective_from),
                limit.requested_by_type,
            )
            for limit in obj.limits.all()[:50]
        ]
        return html_table(("kind", "period", "amount", "requested", "in force from", "by"), rows)

    @admin.display(description="time-outs and self-exclusions")
    def exclusions(self, obj):
        rows = [(e.get_kind_display(), moment_text(e.starts_at), moment_text(e.ends_at)) for e in obj.exclusions.all()]
        return html_table(("kind", "from", "until"), rows)

    @admin.display(description="proposed and decided")
    def adjustments(self, obj):
        adjustments = obj.adjustments.select_related("proposed_by", "decided_by")
        rows = [
            (
                moment_text(a.proposed_at),
                money_text(a.amount, a.currency),
                a.reason,
                a.get_status_display(),
                a.proposed_by,
                a.decided_by or "-",
            )
            for a in adjustments
        ]
        return html_table(("proposed", "amount", "reason", "status", "maker", "checker"), rows)

    @admin.display(description="proposed and decided")
    def identity_changes(self, obj):
        changes = obj.identity_changes.select_related("old_partner", "partner", "proposed_by", "decided_by")
        rows = [
            (
                moment_text(c.proposed_at),
                _identity_text(c.old_partner, c.old_external_id, c.old_currency),
                _identity_text(c.partner, c.external_id, c.currency),
                c.reason,
                c.get_status_display(),
                c.proposed_by,
                c.decided_by or "-",
            )
            for c in changes
        ]
        table = html_table(("proposed", "from", "to", "reason", "status", "maker", "checker"), rows)
        propose = reverse("admin:accounts_playeridentitychange_add") + f"?player={obj.pk}"
        return format_html('{}<p><a href="{}">Propose an identity change</a></p>', table, propose)


def _identity_text(partner, external_id: str, currency: str) -> str:
    owner = f"{partner.name}: {external_id}" if partner is not None else "own account"
    return f"{owner}, {currency}"


class IdentityChangeForm(forms.ModelForm):
    """The proposal: the identity the player is to have, checked as the approval will check it."""

    currency = forms.ChoiceField(choices=[(code, code) for code in sorted(CURRENCIES)])

    class Meta:
        model = PlayerIdentityChange
        fields = ("player", "partner", "external_id", "currency", "reason")

    def clean(self):
        data = super().clean()
        player = data.get("player")
        if player is not None and "currency" in data:
            try:
                player_identity_change_check(
                    player=player,
                    partner=data.get("partner"),
                    external_id=data.get("external_id", ""),
                    currency=data["currency"],
                )
            except ServiceError as exc:
                raise forms.ValidationError(exc.detail) from None
        return data


@admin.register(PlayerIdentityChange)
class PlayerIdentityChangeAdmin(MakerCheckerAdmin):
    """Proposed here (the form starts from the player's identity), approved or rejected by another
    staff member with the list's actions; nothing proposed is ever edited or deleted."""

    proposed_status = IdentityChangeStatus.PROPOSED

    form = IdentityChangeForm
    list_display = ("id", "player", "before", "after", "reason", "status", "proposed_by", "decided_by", "decided_at")
    list_filter = ("status",)
    search_fields = ("player__user__username", "reason", "external_id", "old_external_id")
    raw_id_fields = ("player",)
    actions = ("approve_selected", "reject_selected")

    @admin.display(description="from")
    def before(self, obj):
        return _identity_text(obj.old_partner, obj.old_external_id, obj.old_currency)

    @admin.display(description="to")
    def after(self, obj):
        return _identity_text(obj.partner, obj.external_id, obj.currency)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        player_id = str(initial.get("player", ""))
        player = Player.objects.filter(pk=int(player_id)).first() if re.fullmatch(r"[0-9]{1,18}", player_id) else None
        if player is not None:
            initial.update(partner=player.partner_id, external_id=player.external_id, currency=player.currency)
        return initial

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            created = player_identity_change_propose(
                player=obj.player,
                partner=obj.partner,
                external_id=obj.external_id,
                currency=obj.currency,
                reason=obj.reason,
                proposed_by=request.user,
            )
        except ServiceError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
            return
        obj.pk = created.pk

    @admin.action(description="Approve and apply the selected identity changes", permissions=["change"])
    def approve_selected(self, request, queryset):
        self._decide(
            request, queryset, lambda c, u: player_identity_change_approve(change=c, approved_by=u), "approved"
        )

    @admin.action(description="Reject the selected identity changes", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda c, u: player_identity_change_reject(change=c, rejected_by=u), "rejected")


# --- Game launch: a partner's origins (maker-checker) and its players' game sessions --------------------


class OriginChangeForm(forms.ModelForm):
    """The proposal: every origin of the partner after the change, one a line."""

    origins = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text="One origin a line: https://casino.example or https://casino.example:8443. Empty: the partner's "
        "game sessions open in a window of their own and cannot be framed.",
    )

    class Meta:
        model = PartnerOriginChange
        fields = ("partner", "origins", "reason")

    def clean_origins(self):
        lines = [line.strip() for line in self.cleaned_data.get("origins", "").splitlines() if line.strip()]
        try:
            return origins_check(lines)
        except ServiceError as exc:
            raise forms.ValidationError(exc.detail) from None


@admin.register(PartnerOriginChange)
class PartnerOriginChangeAdmin(MakerCheckerAdmin):
    """Who may frame a partner's game sessions: proposed here, approved or rejected by another staff
    member with the list's actions; nothing proposed is ever edited or deleted."""

    proposed_status = IdentityChangeStatus.PROPOSED

    form = OriginChangeForm
    list_display = ("id", "partner", "before", "after", "reason", "status", "proposed_by", "decided_by", "decided_at")
    list_filter = ("status", "partner")
    actions = ("approve_selected", "reject_selected")

    @admin.display(description="from")
    def before(self, obj):
        return ", ".join(obj.old_origins) or "none"

    @admin.display(description="to")
    def after(self, obj):
        return ", ".join(obj.origins) or "none"

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        partner_id = str(initial.get("partner", ""))
        if re.fullmatch(r"[0-9]{1,18}", partner_id):
            partner = Partner.objects.filter(pk=int(partner_id)).first()
            if partner is not None:
                initial["origins"] = "\n".join(partner.origins)
        return initial

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            created = partner_origin_change_propose(
                partner=obj.partner, origins=form.cleaned_data["origins"], reason=obj.reason, proposed_by=request.user
            )
        except ServiceError as exc:
            self.message_user(request, exc.detail, messages.ERROR)
            return
        obj.pk = created.pk

    @admin.action(description="Approve and apply the selected changes of origins", permissions=["change"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, lambda c, u: partner_origin_change_approve(change=c, approved_by=u), "approved")

    @admin.action(description="Reject the selected changes of origins", permissions=["change"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, lambda c, u: partner_origin_change_reject(change=c, rejected_by=u), "rejected")


class GameSessionStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return (("open", "open"), ("ended", "ended"))

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.filter(ended_at__isnull=True)
        if self.value() == "ended":
            return queryset.filter(ended_at__isnull=False)
        return queryset


@admin.register(GameSession)
class GameSessionAdmin(admin.ModelAdmin):
    """Each game session a partner launched: whose, when it started, when it was last seen, how it
    ended. Operators end one with the list's action (audited); nothing else changes here."""

    list_display = ("short", "partner", "player", "kind", "started", "last_seen_at", "ended")
    list_filter = (GameSessionStateFilter, "partner", "demo", "ended_reason")
    search_fields = ("player__user__username", "player__external_id", "id")
    list_select_related = ("partner", "player__user")
    actions = ("end_selected",)
    fields = (
        "id",
        "partner",
        "player",
        "demo",
        "table_id",
        "language",
        "lobby_url",
        "created_at",
        "launch_expires_at",
        "opened_at",
        "last_seen_at",
        "ended",
        "ended_by",
    )
    readonly_fields = fields

    @admin.display(description="session", ordering="created_at")
    def short(self, obj):
        return short_id(obj.pk)

    @admin.display(description="kind", ordering="demo")
    def kind(self, obj):
        return "demo (play money)" if obj.demo else "player"

    @admin.display(description="started", ordering="opened_at")
    def started(self, obj):
        if obj.opened_at is None:
            return "link not opened"
        return moment_text(obj.opened_at)

    @admin.display(description="ended how", ordering="ended_at")
    def ended(self, obj):
        reason = game_session_end_reason(obj)
        if reason is None:
            return "open"
        when = moment_text(obj.ended_at) if obj.ended_at else "now"
        return f"{GameSessionEnd(reason).label}, {when}"

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False if obj is not None else super().has_change_permission(request, obj)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not request.user.has_perm("accounts.change_gamesession"):
            actions.pop("end_selected", None)
        return actions

    @admin.action(description="End the selected game sessions now")
    def end_selected(self, request, queryset):
        ended = sum(
            game_session_end(session=session, reason=GameSessionEnd.OPERATOR, actor=Actor.operator(request.user))
            for session in queryset.filter(ended_at__isnull=True)
        )
        self.message_user(request, f"{ended} game session(s) ended.", messages.SUCCESS)
