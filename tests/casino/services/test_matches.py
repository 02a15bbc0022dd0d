"""War matches: dealt from a seed, replayed exactly, a person's Steal War decisions validated."""

import hashlib

import pytest

from casino.engine.errors import DecisionRequired
from casino.engine.war import DefaultBot, ScriptedAgent, StealView, TopView, play_war
from casino.models import Match, MatchStatus
from casino.services.matches import MatchNotAwaitingDecision, match_decide, match_replay, match_start
from core.errors import InvalidInput

pytestmark = pytest.mark.django_db
SEED = "ab" * 32


def steal_seed(kind):
    """A seed whose first question to seat 0 of a two-seat Steal War is of `kind`."""
    for i in range(5_000):
        seed = hashlib.sha256(f"match-{i}".encode()).hexdigest()
        try:
            play_war("steal", seed=seed, agents=[ScriptedAgent(), DefaultBot()])
        except DecisionRequired as pause:
            if isinstance(pause.view, kind):
                return seed
    raise AssertionError("no seed")


@pytest.mark.parametrize(
    "preset", ["classic", "standard", "one_down", "razboi", "steal", "pyanitsa", "tod_und_leben", "peace"]
)
def test_a_match_replays_exactly_what_the_engine_deals(preset):
    match, replay = match_start(player=None, preset=preset, server_seed=SEED, client_seed="c")
    expected = play_war(preset, seed=SEED, client_seed="c")
    assert match.status == MatchStatus.FINISHED and match.finished_at is not None
    assert replay.game.as_json(events=True) == expected.as_json(events=True)
    again = match_replay(Match.objects.get(pk=match.pk))
    assert again.game.as_json(events=True) == expected.as_json(events=True)


def test_a_server_seed_is_drawn_when_none_is_given_and_its_hash_is_published():
    from casino.engine.fairness import server_seed_hash

    one, _ = match_start(player=None, preset="classic")
    two, _ = match_start(player=None, preset="classic")
    assert one.server_seed != two.server_seed and len(one.server_seed) == 64
    assert one.server_seed_hash == server_seed_hash(one.server_seed)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"preset": "chess"}, "preset is one of"),
        ({"preset": "classic", "options": []}, "options is a JSON object"),
        ({"preset": "peace", "options": {"down": 1}}, "five cards face down"),
        ({"preset": "tod_und_leben", "options": {"seats": 3}}, "2 seats, not 3"),
        ({"preset": "classic", "server_seed": "xyz"}, "64 hex digits"),
        ({"preset": "classic", "client_seed": "a\x00b"}, "printable"),
        ({"preset": "classic", "human_seat": 0}, "only in Steal War"),
        ({"preset": "steal", "human_seat": 2}, "from 0 to 1"),
        ({"preset": "steal", "human_seat": True}, "from 0 to 1"),
    ],
)
def test_bad_requests_are_refused_with_the_reason_and_store_nothing(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        match_start(player=None, **kwargs)
    assert not Match.objects.exists()


def test_a_person_steals_and_the_game_goes_on_to_the_next_question_or_the_end():
    match, replay = match_start(player=None, preset="steal", server_seed=steal_seed(StealView), human_seat=0)
    assert match.status == MatchStatus.AWAITING_DECISION
    assert isinstance(replay.pending, StealView) and replay.game is None
    target = replay.pending.targets[0]
    with pytest.raises(InvalidInput):
        match_decide(match=match, top=0)  # the question is a steal
    with pytest.raises(InvalidInput):
        match_decide(match=match, steal=9)
    match, replay = match_decide(match=match, steal=target)
    assert match.steals == [target]
    assert any(e.kind == "steal" and e.seat == 0 for e in replay.events)


def test_a_person_chooses_the_top_card_of_a_won_trick():
    match, replay = match_start(player=None, preset="steal", server_seed=steal_seed(TopView), human_seat=0)
    assert isinstance(replay.pending, TopView)
    with pytest.raises(InvalidInput):
        match_decide(match=match, top=len(replay.pending.cards))
    last = len(replay.pending.cards) - 1
    match, replay = match_decide(match=match, top=last)
    assert match.tops == [last]
    took = [e for e in replay.events if e.kind == "take" and e.seat == 0]
    assert took, "the trick was laid"


def test_playing_on_to_the_end_finishes_the_match_and_a_finished_match_takes_no_decision():
    match, replay = match_start(player=None, preset="steal", server_seed=steal_seed(StealView), human_seat=0)
    for _ in range(500):
        if replay.pending is None:
            break
        if isinstance(replay.pending, StealView):
            match, replay = match_decide(match=match, steal=None)
        else:
            match, replay = match_decide(match=match, top=0)
    assert match.status == MatchStatus.FINISHED and replay.game is not None
    with pytest.raises(MatchNotAwaitingDecision):
        match_decide(match=match, steal=None)


def test_a_battle_limit_beyond_what_a_match_replays_is_refused():
    for limit in (10**9, 20_000, 5_001):
        with pytest.raises(InvalidInput, match="at most 5,000"):
            match_start(player=None, preset="standard", options={"max_battles": limit})
    match, _ = match_start(player=None, preset="standard", options={"max_battles": 5_000}, server_seed=SEED)
    assert match.status == MatchStatus.FINISHED


def test_matches_are_forgotten_after_a_month(monkeypatch):
    from datetime import timedelta

    from casino.services.matches import matches_purge
    from core import clock

    old, _ = match_start(player=None, preset="classic", server_seed=SEED)
    Match.objects.filter(pk=old.pk).update(created_at=clock.now() - timedelta(days=31))
    recent, _ = match_start(player=None, preset="classic", server_seed=SEED)
    assert matches_purge() == 1
    assert list(Match.objects.values_list("pk", flat=True)) == [recent.pk]
