"""Pages of the web front end. Pages render what the selectors read; the play itself (rounds,
decisions, seeds, War matches) runs in the browser against the public REST API, signed in with
the session cookie, so the web and partner casinos use one contract."""

from __future__ import annotations

import uuid
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.services import (
    PLAY_MONEY_TOP_UPS,
    TERMS_VERSION,
    player_authenticate,
    player_language_set,
    player_password_change,
    player_play_money_top_up,
    player_signup,
)
from casino.engine import InvalidRulesError
from casino.engine.war import build_rules
from casino.selectors import (
    round_awaiting_decision_id,
    round_get_for_player,
    round_list_for_player,
    table_get_open,
    table_house_edge,
    table_list_open,
    table_representation,
    war_presets,
)
from casino.services.rounds import rounds_decide_overdue_for_player
from core.actors import Actor
from core.api import validated
from core.errors import InvalidInput, ServiceError, TooManyAttempts
from core.shapes import wire
from ledger.money import MAX_MINOR_UNITS, format_money, parse_money
from ledger.selectors import account_lines, player_wallet_summary
from ledger.services import player_accounts_open
from protection.selectors import protection_summary
from protection.serializers import ExclusionStartSerializer, LimitSetSerializer, RealityCheckSerializer
from protection.services import exclusion_start, limit_set, reality_check_set, session_start
from web.chips import chip_values
from web.forms import PasswordChangeForm, SignInForm, SignUpForm


def favicon(request):
    """`/favicon.ico`, which browsers ask for on pages that name no icon (API documents, files)."""
    return redirect(static("web/favicon.ico"))  # not permanent: the static name changes with the file


def player_required(view):
    """A signed-in player; anyone else is sent to sign in (staff accounts do not play)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        player = getattr(request.user, "player", None)
        if player is None:
            messages.error(request, _("This account is a staff account: sign in as a player to play."))
            return redirect("web:lobby")
        request.player = player
        return view(request, *args, **kwargs)

    return wrapper


def _safe_next(request, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    ok = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    return target if ok and target.startswith("/") else fallback


def lobby(request):
    tables = [{"table": t, "house_edge": table_house_edge(table=t)} for t in table_list_open()]
    return render(request, "web/lobby.html", {"tables": tables})


def rules(request):
    return render(request, "web/rules.html", {"presets": war_presets()})


def signup(request):
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            player = player_signup(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password"],
                email=form.cleaned_data["email"],
                request=request,
                age_confirmed=form.cleaned_data["age_confirmed"],
                terms_accepted=form.cleaned_data["terms_accepted"],
            )
        except ServiceError as error:
            form.add_error(None, error.detail)
            status = 429 if isinstance(error, TooManyAttempts) else 200
        else:
            login(request, player.user, backend="django.contrib.auth.backends.ModelBackend")
            session_start(player=player)
            messages.success(request, _("Welcome, %(name)s. Your wallet is open.") % {"name": player.user.username})
            return redirect(_safe_next(request, reverse("web:wallet")))
    return render(
        request,
        "web/signup.html",
        {
            "form": form,
            "next": _safe_next(request, ""),
            "minimum_age": settings.MINIMUM_AGE,
        },
        status=status,
    )


def terms(request):
    """The terms of play a player accepts at sign-up (their version is recorded with the acceptance)."""
    return render(
        request,
        "web/terms.html",
        {
            "minimum_age": settings.MINIMUM_AGE,
            "version": TERMS_VERSION,
            "play_money": settings.PLAY_MONEY,
        },
    )


def signin(request):
    form = SignInForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            player = player_authenticate(
                request=request, username=form.cleaned_data["username"], password=form.cleaned_data["password"]
            )
        except ServiceError as error:
            player = None
            form.add_error(None, error.detail)
            status = 429 if isinstance(error, TooManyAttempts) else 200
        if player is None:
            if not form.errors:
                form.add_error(None, _("That username and password do not match an account."))
        else:
            login(request, player.user)
            session_start(player=player)
            return _with_language(redirect(_safe_next(request, reverse("web:lobby"))), player)
    return render(request, "web/signin.html", {"form": form, "next": _safe_next(request, "")}, status=status)


def _remember_language(response, language: str):
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )
    return response


def _with_language(response, player):
    """Signing in brings back the language the player chose (on any device)."""
    return _remember_language(response, player.language) if player is not None and player.language else response


@require_POST
def language_set(request):
    """The language switcher: remembered in a cookie, and on the account of a signed-in player."""
    language = request.POST.get("language", "")
    response = redirect(_safe_next(request, reverse("web:lobby")))
    if language not in dict(settings.LANGUAGES):
        return response
    player = getattr(request.user, "player", None) if request.user.is_authenticated else None
    if player is not None:
        player_language_set(player=player, language=language)
    translation.activate(language)
    return _remember_language(response, language)


@require_POST
def signout(request):
    logout(request)
    messages.info(request, _("You are signed out."))
    return redirect("web:lobby")


@player_required
def wallet(request):
    player = request.player
    wallet_account, _in_play = player_accounts_open(player=player)
    lines = Paginator(account_lines(account=wallet_account), 25).get_page(request.GET.get("page"))
    return render(
        request,
        "web/wallet.html",
        {
            "summary": player_wallet_summary(player=player),
            "lines": lines,
            "play_money": settings.PLAY_MONEY,
            "top_ups": PLAY_MONEY_TOP_UPS,
            "top_up_key": uuid.uuid4().hex,
        },
    )


@player_required
def password_change(request):
    """The signed-in player's new password: every other session and every API token ends, this
    session goes on."""
    form = PasswordChangeForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            player_password_change(
                request=request,
                player=request.player,
                old_password=form.cleaned_data["old_password"],
                new_password=form.cleaned_data["new_password"],
            )
        except ServiceError as error:
            form.add_error(None, error.detail)
            status = 429 if isinstance(error, TooManyAttempts) else 200
        else:
            update_session_auth_hash(request, request.user)
            messages.success(request, _("Your password is changed. Other devices are signed out."))
            return redirect("web:wallet")
    return render(request, "web/password.html", {"form": form}, status=status)


@require_POST
@player_required
def wallet_top_up(request):
    try:
        amount = int(request.POST.get("amount", ""))
    except ValueError:
        amount = None
    key = request.POST.get("key", "")
    if not (isinstance(key, str) and len(key) == 32 and key.isalnum()):
        messages.error(request, _("The form expired; please try again."))
        return redirect("web:wallet")
    try:
        player_play_money_top_up(
            player=request.player, amount=amount, idempotency_key=f"top-up:{request.player.pk}:{key}"
        )
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("Play money added to your wallet."))
    return redirect("web:wallet")


@player_required
def table_play(request, table_id: int):
    table = table_get_open(table_id=table_id)
    if table is None:
        raise Http404(_("This table is closed or does not exist."))
    rounds_decide_overdue_for_player(player=request.player)  # past its deadline, a decision is the house's
    pending = round_awaiting_decision_id(player=request.player, table=table)
    chips = chip_values(min_bet=table.min_bet, max_bet=table.max_bet, bet_step=table.bet_step)
    return render(
        request,
        "web/table.html",
        {
            "table": table,
            "house_edge": table_house_edge(table=table),
            "table_json": {**wire(table_representation(table)), "chips": chips},
            "pending_round": str(pending) if pending else None,
            "summary": player_wallet_summary(player=request.player),
            "decides": "surrender" if request.player.is_seamless else table.house_rule,  # a tie left undecided
        },
    )


@player_required
def history(request):
    rounds_decide_overdue_for_player(player=request.player)  # as the API's reads do: no job need run first
    rounds = Paginator(round_list_for_player(player=request.player).select_related("table"), 20)
    return render(request, "web/history.html", {"rounds": rounds.get_page(request.GET.get("page"))})


@player_required
def round_recall(request, round_id: str):
    rounds_decide_overdue_for_player(player=request.player)
    round_ = round_get_for_player(player=request.player, round_id=round_id)
    if round_ is None:
        raise Http404(_("No such round."))
    return render(request, "web/round.html", {"round": round_})


@player_required
def fairness(request):
    return render(request, "web/fairness.html", {"round_id": request.GET.get("round", "")})


# The engine names presets by ids and describes them in plain English; players read these, in their language.
PRESET_NAMES = {
    "classic": gettext_lazy("Classic War"),
    "standard": gettext_lazy("Standard War"),
    "one_down": gettext_lazy("One Down War"),
    "multiplayer": gettext_lazy("War for three or four"),
    "three_player": gettext_lazy("Three-player War"),
    "razboi": "Război",
    "steal": gettext_lazy("Steal War"),
    "pyanitsa": gettext_lazy("P'yanitsa (the Drunkard)"),
    "tod_und_leben": "Tod und Leben",
    "peace": gettext_lazy("Peace"),
}
PRESET_DESCRIPTIONS = {
    "classic": gettext_lazy("Two players; one card down and one up in a war."),
    "standard": gettext_lazy("Two players; three cards down and one up in a war; no battle limit."),
    "one_down": gettext_lazy("One card down and one up; every seat fights; a draw after 1000 battles."),
    "multiplayer": gettext_lazy("Three or four players; every seat fights a war."),
    "three_player": gettext_lazy("17 cards each, the last one aside; only the tied seats fight."),
    "razboi": gettext_lazy("Romanian War: a war as long as the tied card's value."),
    "steal": gettext_lazy("Steal War: capture piles that can be stolen."),
    "pyanitsa": gettext_lazy("Russian Drunkard: the six beats the ace."),
    "tod_und_leben": gettext_lazy("German Life and Death: tricks are scored, not played again."),
    "peace": gettext_lazy("The lowest card wins."),
}
# A value of each option of the War games form that differs from every preset's fixed one: the
# engine refuses it for a preset exactly when the preset does not let a player change that option.
OPTION_PROBES = {
    "down": 2,
    "war_participants": "tied",
    "gather": "winner",
    "out_of_cards": "lose",
    "max_battles": 500,
    "on_limit": "count",
    "jokers": True,
    "split_jokers": True,
    "tie": "down_up",
    "objective": "drunkard",
}


def _adjustable_options(preset: str) -> list[str]:
    """The options of the form that a player may change for this preset, as the engine decides."""
    adjustable = []
    for option, probe in OPTION_PROBES.items():
        try:
            build_rules(preset, {option: probe})
        except InvalidRulesError:
            continue
        adjustable.append(option)
    return adjustable


def war(request):
    presets = [
        {
            **wire(p),
            "title": str(PRESET_NAMES.get(p.name, p.name)),
            "description": str(PRESET_DESCRIPTIONS.get(p.name, p.description)),
            "options": _adjustable_options(p.name),
        }
        for p in war_presets()
    ]
    return render(request, "web/war.html", {"presets_json": presets})


@player_required
def protection(request):
    summary = protection_summary(player=request.player)
    return render(
        request,
        "web/protection.html",
        {
            "summary": summary,
            "session_minutes": summary.session.elapsed_s // 60,
            "currency": request.player.currency,
            "timeout_days": (1, 3, 7, 14, 30, 42),
            "reality_minutes": (0, 15, 30, 60, 120),
        },
    )


@require_POST
@player_required
def protection_change(request):
    """One form per change: a limit, the reality-check interval, a time-out or a self-exclusion."""
    player, actor, form = request.player, Actor.player(request.player), request.POST
    try:
        if form.get("change") == "limit":
            amount = None
            if not form.get("remove"):
                amount = _limit_amount(form.get("amount", ""), currency=player.currency)
            shape = {"kind": form.get("kind"), "period": form.get("period"), "amount": amount}
            limit = limit_set(player=player, **validated(LimitSetSerializer, shape), actor=actor)
            if limit.effective_from > limit.requested_at:
                messages.info(request, _("Raising or removing a limit takes effect after 24 hours."))
            else:
                messages.success(request, _("Your limit applies now."))
        elif form.get("change") == "reality_check":
            shape = validated(RealityCheckSerializer, {"interval_minutes": _int(form.get("interval"))})
            reality_check_set(player=player, **shape, actor=actor)
            messages.success(request, _("Reality check saved."))
        elif form.get("change") in ("timeout", "self_exclusion"):
            if not form.get("confirm"):
                raise InvalidInput(_("Tick the box to confirm: it cannot be undone early."))
            kind = form["change"]
            length = {"days": _int(form.get("days"))} if kind == "timeout" else {"months": _int(form.get("months"))}
            exclusion_start(player=player, **validated(ExclusionStartSerializer, {"kind": kind, **length}), actor=actor)
            logout(request)
            messages.info(request, _("You are signed out until your break ends. Take care."))
            return redirect("web:lobby")
        else:
            raise InvalidInput(_("Unknown change."))
    except ServiceError as error:
        messages.error(request, error.detail)
    return redirect("web:protection")


def _limit_amount(text: str, *, currency: str) -> int:
    """A limit the player typed, in minor units, or the reason it is not one, in the player's words."""
    try:
        amount = parse_money(text)
    except ValueError:
        raise InvalidInput(_("Write the limit as an amount, for example 50 or 50.00.")) from None
    if amount == 0:
        raise InvalidInput(_("A limit must be more than zero. To remove a limit, tick “remove this limit”."))
    if amount > MAX_MINOR_UNITS:
        raise InvalidInput(_("A limit can be at most %(max)s.") % {"max": format_money(MAX_MINOR_UNITS, currency)})
    return amount


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
