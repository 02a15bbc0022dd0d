"""The pages of a game session (API.md "Game launch"): the table opened on a partner's site.

The launch URL (`/play/launch/<token>/`) opens once (accounts/game_sessions.py): its answer is the
table (or lobby) with the session's credential inside, which the page's scripts keep and send as
`Authorization: GameSession <token>`. A browser that blocks third-party cookies also refuses a
cross-site frame its storage (Chromium throws on sessionStorage there), so the credential lives in
the page's memory and in the frame's `window.name` (web/static/web/game.js), which survives a
reload and a link to the next page of the same frame, and nothing else: no cookie, no URL.

The other pages of a session (`/play/<session>/...`) are shells that a navigation can fetch
without any credential: public data only (tables, texts), the player's own data read by the
scripts through the API with the credential. Every page of a session may be framed by the
partner's origins and no others (`frame-ancestors`); one with no origin cannot be framed at all.
"""

from __future__ import annotations

import uuid

from csp.constants import NONE
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import JavaScriptCatalog

from accounts.game_sessions import (
    LaunchGone,
    game_session_by_credential,
    game_session_end,
    game_session_end_reason,
    game_session_end_text,
    game_session_open,
)
from accounts.models import GameSession, GameSessionEnd
from casino.selectors import table_get_open, table_house_edge, table_list_open, table_representation
from core.actors import Actor
from core.shapes import wire
from protection.services import session_start
from web.chips import chip_values

LANGUAGES = ("en", "pt-br", "es")
# How often the page asks whether its session still runs (a DELETE, an operator, the idle limit);
# asking does not count as play, so a session left alone still ends after 30 minutes.
STATE_POLL_S = 15


def _framed(response, session: GameSession | None):
    """Who may frame this answer: exactly the partner's origins; nobody without them. Never stored
    by a cache (a launch answer carries the credential; the rest is per session)."""
    origins = list(session.partner.origins) if session is not None else []
    response._csp_replace = {"frame-ancestors": origins or [NONE]}
    if origins:
        response.xframe_options_exempt = True  # frame-ancestors rules; X-Frame-Options would forbid every frame
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _language(session: GameSession | None, request) -> str:
    language = (session.language or session.player.language) if session is not None else ""
    if language not in LANGUAGES:
        language = translation.get_language_from_request(request)
    translation.activate(language)
    request.LANGUAGE_CODE = language
    return language


def _game(session: GameSession, *, language: str) -> dict:
    """What every page of the session shows and what its scripts read (not secret)."""
    return {
        "id": str(session.pk),
        "origins": list(session.partner.origins),
        "lobby_url": session.lobby_url,
        "demo": session.demo,
        "currency": session.player.currency,
        "language": language,
        "poll_s": STATE_POLL_S,
    }


def _session_of(session_id: str) -> GameSession:
    try:
        pk = uuid.UUID(session_id)
    except ValueError:
        raise Http404 from None
    session = GameSession.objects.select_related("partner", "player__user").filter(pk=pk).first()
    if session is None or session.opened_at is None:
        raise Http404
    return session


def _page(
    request,
    session: GameSession,
    template: str,
    context: dict,
    *,
    credential: str | None = None,
    path: str | None = None,
):
    language = _language(session, request)
    reason = game_session_end_reason(session)
    game = {**_game(session, language=language), "path": path or request.path}
    if reason is not None:
        response = render(
            request,
            "web/game_ended.html",
            {
                "game": game,
                "base": "web/game_base.html",
                "ended_text": game_session_end_text(reason),
            },
        )
        return _framed(response, session)
    context = {**context, "game": game, "base": "web/game_base.html", "credential": credential}
    return _framed(render(request, template, context), session)


def _lobby_context(session: GameSession) -> dict:
    tables = [
        {"table": t, "house_edge": table_house_edge(table=t)}
        for t in table_list_open()
        if t.currency == session.player.currency
    ]
    return {"tables": tables}


def _table_context(table, session: GameSession) -> dict:
    chips = chip_values(min_bet=table.min_bet, max_bet=table.max_bet, bet_step=table.bet_step)
    return {
        "table": table,
        "house_edge": table_house_edge(table=table),
        "table_json": {**wire(table_representation(table)), "chips": chips},
        "pending_round": None,  # the page's script finds it through the API
        "summary": None,
        # a tie left undecided: a seamless partner's round surrenders (its raise would be a debit nobody asked for)
        "decides": "surrender" if session.player.is_seamless else table.house_rule,
    }


@require_GET
def launch(request, token: str):
    """The launch URL: the table (or lobby) once, then `410` with the way back to the casino."""
    try:
        session, credential = game_session_open(launch_token=token)
    except LaunchGone as gone:
        session = gone.session
        _language(session, request)
        response = render(
            request,
            "web/game_gone.html",
            {
                "lobby_url": session.lobby_url if session is not None else "",
            },
            status=410,
        )
        return _framed(response, session)
    session_start(player=session.player)  # the reality check counts from here, as from a sign-in
    table = table_get_open(table_id=session.table_id) if session.table_id else None
    if table is not None and table.currency == session.player.currency:
        path = reverse("web:game-table", args=[session.pk, table.pk])
        return _page(
            request, session, "web/table.html", _table_context(table, session), credential=credential, path=path
        )
    path = reverse("web:game-lobby", args=[session.pk])
    return _page(request, session, "web/lobby.html", _lobby_context(session), credential=credential, path=path)


@require_GET
def lobby(request, session_id: str):
    session = _session_of(session_id)
    return _page(request, session, "web/lobby.html", _lobby_context(session))


@require_GET
def table(request, session_id: str, table_id: int):
    session = _session_of(session_id)
    found = table_get_open(table_id=table_id)
    if found is None or found.currency != session.player.currency:
        raise Http404
    return _page(request, session, "web/table.html", _table_context(found, session))


@require_GET
def history(request, session_id: str):
    session = _session_of(session_id)
    return _page(request, session, "web/game_history.html", {})


def _credential_session(request, session_id: str) -> GameSession | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme != "GameSession":
        return None
    found = game_session_by_credential(token=token.strip())
    return found if found is not None and str(found.pk) == session_id else None


@require_GET
def state(request, session_id: str):
    """Whether the session still runs, for its page's scripts (with its credential); asking does not
    count as play."""
    session = _credential_session(request, session_id)
    if session is None:
        return _framed(JsonResponse({"active": False, "detail": game_session_end_text("")}, status=401), None)
    _language(session, request)
    reason = game_session_end_reason(session)
    body = {"active": reason is None}
    if reason is not None:
        body.update(reason=reason, detail=game_session_end_text(reason))
    return _framed(JsonResponse(body), session)


# The credential is a header only the page's own scripts send (no cookie, nothing a browser adds
# by itself), so a forged cross-site request cannot carry it: the CSRF token protects nothing here.
@csrf_exempt
@require_POST
def end(request, session_id: str):
    """The player stops (the reality check's "stop"): the session ends."""
    session = _credential_session(request, session_id)
    if session is None:
        return _framed(JsonResponse({"active": False}, status=401), None)
    game_session_end(session=session, reason=GameSessionEnd.PLAYER, actor=Actor.player(session.player))
    _language(session, request)
    return _framed(
        JsonResponse(
            {"active": False, "reason": session.ended_reason, "detail": game_session_end_text(session.ended_reason)}
        ),
        session,
    )


_catalog = JavaScriptCatalog.as_view(packages=["web"])


@require_GET
def catalog(request, language: str):
    """The scripts' translations in the session's language (no language cookie in a frame)."""
    if language not in LANGUAGES:
        raise Http404
    translation.activate(language)
    request.LANGUAGE_CODE = language
    response = _catalog(request)
    response["Cache-Control"] = "public, max-age=3600"
    return response
