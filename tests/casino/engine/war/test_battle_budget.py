"""`battle_budget` bounds the battles one call plays (a service's bound on a request's work)
without changing any game that ends within it."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino.engine.errors import BattleBudgetExceeded, DecisionRequired
from casino.engine.fairness import HmacStream
from casino.engine.war import PRESETS, build_rules
from casino.engine.war.game import play_dealt, seeded_deal


def play(preset: str, seed: int, *, budget=None, events=True):
    rules = build_rules(preset, {})
    stream = HmacStream(f"{seed:064x}", "", 0)
    return play_dealt(rules, seeded_deal(rules, stream), stream, record_events=events, battle_budget=budget)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    preset=st.sampled_from(sorted(set(PRESETS) - {"tod_und_leben"})), seed=st.integers(0, 2**64), events=st.booleans()
)
def test_a_game_within_its_budget_is_the_same_game_and_one_beyond_it_stops(preset, seed, events):
    try:
        game = play(preset, seed, events=events)
    except DecisionRequired:
        return
    battles = len(game.battles)
    if battles > 20_000:
        return
    assert play(preset, seed, budget=battles, events=events) == game
    if battles > 1:
        with pytest.raises(BattleBudgetExceeded):
            play(preset, seed, budget=battles - 1, events=events)


def test_a_classic_deal_of_two_hundred_thousand_battles_stops_at_the_budget():
    endless = int("8e02a02a9e65049435aea402e0783a808343da5e7c6f72f846c2c57e0b6aec83", 16)
    with pytest.raises(BattleBudgetExceeded, match="5000 battles"):
        play("classic", endless, budget=5_000)
