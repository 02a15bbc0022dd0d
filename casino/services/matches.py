"""War matches played for fun: any preset of the rule book, dealt from a provably fair seed.

A match stores only what replays it (seeds, rules, a person's Steal War decisions); the engine
replays it on every read, so a match can never drift from what its seed deals.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from datetime import timedelta
from types import EllipsisType

from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Player
from casino.engine.errors import BattleBudgetExceeded, DecisionRequired, EngineError
from casino.engine.fairness import HmacStream, server_seed_hash
from casino.engine.war import PRESETS, DefaultBot, ScriptedAgent, StealView, TopView, WarGame, build_rules
from casino.engine.war.game import play_dealt, seeded_deal
from casino.models import Match, MatchStatus
from core import clock
from core.audit import audit_record
from core.errors import InvalidInput, StateConflict
from core.text import is_printable_text
from ledger.money import format_number

MATCH_NONCE = 0  # a match has its own seed, so every match is nonce 0 of its seed pair
# A match is replayed on every read (anyone may deal one, signed in or not): no request plays more
# battles than this. `max_battles` is at most this, and a game without a limit that has not ended
# by then (a classic deal can run 200,000 battles before it repeats) is refused, not played on.
MAX_BATTLES_LIMIT = 5_000
# A seed the service draws whose deal runs past the bound (about 2 deals in 100 of standard War)
# is given up for a new one, a public rule that favours no seat; a seed the caller gives is not.
SEED_DRAWS = 5


class MatchNotAwaitingDecision(StateConflict):
    code = "match_not_awaiting_decision"
    title = gettext_lazy("The match is not waiting for a decision")


class MatchTooLong(StateConflict):
    """A stored match that does not end within MAX_BATTLES_LIMIT (one dealt before that bound)."""

    code = "match_too_long"
    title = gettext_lazy("The match is longer than the service replays")
    battles_played = MAX_BATTLES_LIMIT  # what finding it out cost


class DealTooLong(InvalidInput):
    """A new deal that does not end within MAX_BATTLES_LIMIT: refused, not stored."""

    def __init__(self, detail: str, *, played: int = MAX_BATTLES_LIMIT) -> None:
        super().__init__(detail)
        self.battles_played = played  # what finding it out cost


def _too_long_text() -> str:
    return gettext(
        "this deal has not ended after %(max)s battles: set max_battles (at most %(max)s) or deal another seed"
    ) % {"max": format_number(MAX_BATTLES_LIMIT)}


@dataclass(frozen=True)
class MatchReplay:
    """A match as the engine replays it: finished (`game`), or paused at a person's decision."""

    deal: list[list[int]]
    game: WarGame | None
    events: tuple
    battles: tuple
    pending: StealView | TopView | None
    discarded: int = 0  # battles played for seeds drawn before this one and given up (match_start)


def _printable(value: str, *, name: str, max_length: int) -> str:
    if len(value) > max_length or not is_printable_text(value):
        raise InvalidInput(
            gettext("%(name)s is at most %(max)s printable characters") % {"name": name, "max": max_length}
        )
    return value


def match_replay(match: Match) -> MatchReplay:
    """Replay the match from its seed and the person's decisions so far; `MatchTooLong` for a
    match that does not end within MAX_BATTLES_LIMIT battles (one dealt before that bound)."""
    try:
        return _replayed(match)
    except BattleBudgetExceeded:
        raise MatchTooLong(_too_long_text()) from None


def _replayed(match: Match) -> MatchReplay:
    rules = build_rules(match.preset, match.options)
    stream = HmacStream(match.server_seed, match.client_seed, MATCH_NONCE)
    deal = seeded_deal(rules, stream)
    agents = None
    if match.human_seat is not None:
        agents = [DefaultBot() for _ in range(rules.seats)]
        agents[match.human_seat] = ScriptedAgent(list(match.steals), list(match.tops))
    try:
        game = play_dealt(rules, [list(s) for s in deal], stream, agents=agents, battle_budget=MAX_BATTLES_LIMIT)
    except DecisionRequired as pause:
        return MatchReplay(deal, None, pause.events, pause.battles, pause.view)
    return MatchReplay(deal, game, game.events or (), game.battles, None)


def match_start(
    *,
    player: Player | None,
    preset: str,
    options: dict | None = None,
    client_seed: str = "",
    server_seed: str | None = None,
    human_seat: int | None = None,
) -> tuple[Match, MatchReplay]:
    """Deal a new match. Without `server_seed` one is drawn from `secrets` (again, up to SEED_DRAWS
    times, while its deal would not end within MAX_BATTLES_LIMIT battles) and only its hash is
    shown until the match ends; with `human_seat` (Steal War) the person at that seat makes its
    decisions."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidInput(gettext("preset is one of %(presets)s") % {"presets": ", ".join(PRESETS)})
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise InvalidInput(gettext("options is a JSON object of the rule book's options (section 8)"))
    client_seed = _printable(client_seed or "", name="client_seed", max_length=64)
    drawn = server_seed is None
    if drawn:
        server_seed = secrets.token_hex(32)
    elif not isinstance(server_seed, str) or len(server_seed) != 64:
        raise InvalidInput(gettext("server_seed is 64 hex digits"))
    limit = options.get("max_battles")
    if type(limit) is int and limit > MAX_BATTLES_LIMIT:
        text = gettext("max_battles is at most %(max)s here")
        raise InvalidInput(text % {"max": format_number(MAX_BATTLES_LIMIT)})
    try:
        seed_hash = server_seed_hash(server_seed)
        rules = build_rules(preset, options)
    except EngineError as error:
        raise InvalidInput(gettext("the rules refuse this game: %(reason)s") % {"reason": error}) from None
    if human_seat is not None:
        if rules.preset != "steal":
            raise InvalidInput(gettext("a person can take a seat only in Steal War; other presets take no decisions"))
        if type(human_seat) is not int or not 0 <= human_seat < rules.seats:
            raise InvalidInput(gettext("human_seat is a seat number from 0 to %(last)s") % {"last": rules.seats - 1})
    discarded = 0
    for _draw in range(SEED_DRAWS if drawn else 1):
        match = Match(
            player=player,
            preset=preset,
            options=options,
            server_seed=server_seed.lower(),
            server_seed_hash=seed_hash,
            client_seed=client_seed,
            human_seat=human_seat,
            created_at=clock.now(),
        )
        try:
            replay = _replayed(match)
            break
        except BattleBudgetExceeded:
            discarded += MAX_BATTLES_LIMIT
            server_seed = secrets.token_hex(32)
            seed_hash = server_seed_hash(server_seed)
    else:
        raise DealTooLong(_too_long_text(), played=discarded)
    replay = dataclasses.replace(replay, discarded=discarded)
    _finish_if_over(match, replay)
    with transaction.atomic():
        match.save(force_insert=True)
        audit_record(
            actor_type="player" if player else "anonymous",
            actor_id=player.pk if player else "",
            action="match.start",
            obj_type="match",
            obj_id=match.id,
            preset=preset,
        )
    return match, replay


def match_decide(
    *, match: Match, steal: int | EllipsisType | None = ..., top: int | EllipsisType = ...
) -> tuple[Match, MatchReplay]:
    """The person's decision at the match's pending question: `steal` (a seat number, or null to
    play the card) when it may steal, `top` (an index into the won cards) when it lays a trick."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match.pk)
        replay = match_replay(match)
        pending = replay.pending
        if match.status != MatchStatus.AWAITING_DECISION or pending is None:
            raise MatchNotAwaitingDecision(gettext("the match is not waiting for a decision"))
        if isinstance(pending, StealView):
            if steal is ... or top is not ...:
                raise InvalidInput('the seat may steal: answer {"steal": <seat>} or {"steal": null} to play the card')
            if steal is not None and (type(steal) is not int or steal not in pending.targets):
                raise InvalidInput(
                    gettext("steal is one of the seats %(seats)s or null") % {"seats": list(pending.targets)}
                )
            match.steals = [*match.steals, steal]
        else:
            if top is ... or steal is not ...:
                raise InvalidInput('the seat won a trick: answer {"top": <index of the card to lay on top>}')
            if type(top) is not int or not 0 <= top < len(pending.cards):
                raise InvalidInput(gettext("top is an index from 0 to %(last)s") % {"last": len(pending.cards) - 1})
            match.tops = [*match.tops, top]
        replay = match_replay(match)
        _finish_if_over(match, replay)
        match.save(update_fields=["steals", "tops", "status", "finished_at"])
        audit_record(
            actor_type="player" if match.player_id else "anonymous",
            actor_id=match.player_id or "",
            action="match.decide",
            obj_type="match",
            obj_id=match.id,
            steal=None if steal is ... else steal,
            top=None if top is ... else top,
        )
    return match, replay


def _finish_if_over(match: Match, replay: MatchReplay) -> None:
    if replay.game is None:
        match.status = MatchStatus.AWAITING_DECISION
    else:
        match.status = MatchStatus.FINISHED
        match.finished_at = match.finished_at or clock.now()


MATCHES_KEPT_DAYS = 30


def matches_purge(*, older_than_days: int = MATCHES_KEPT_DAYS) -> int:
    """War matches are games for fun (no money moves): forget them after a month."""
    cutoff = clock.now() - timedelta(days=older_than_days)
    deleted, _ = Match.objects.filter(created_at__lt=cutoff).delete()
    return deleted
