"""The two-seat loop (taken when no event log is asked for) plays exactly the general loop's game:
the same result and the same record for every battle, under every option that applies."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino.engine.fairness import HmacStream
from casino.engine.war import build_rules, play_dealt, seeded_deal
from casino.engine.war.common import _play_two_seats

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "down": st.integers(0, 5),
        "gather": st.sampled_from(["seat", "winner", "shuffle"]),
        "out_of_cards": st.sampled_from(["last_card", "lose"]),
        "max_battles": st.integers(1, 400),
        "on_limit": st.sampled_from(["draw", "count"]),
        "jokers": st.booleans(),
    },
)


def both_ways(preset: str, options: dict, seed: str):
    rules = build_rules(preset, options)
    deal = seeded_deal(rules, HmacStream(seed, "two", 0))
    fast = play_dealt(rules, [list(s) for s in deal], HmacStream(seed, "play", 0), record_events=False)
    general = play_dealt(rules, [list(s) for s in deal], HmacStream(seed, "play", 0), record_events=True)
    return fast, general


@settings(max_examples=300, deadline=None, derandomize=True)
@given(preset=st.sampled_from(["classic", "standard", "peace"]), options=OPTIONS, n=st.integers(0, 10**6))
def test_the_two_seat_loop_plays_the_general_loops_game(preset, options, n):
    if preset == "peace":
        options = {k: v for k, v in options.items() if k != "down"}
    seed = hashlib.sha256(str(n).encode()).hexdigest()
    fast, general = both_ways(preset, options, seed)
    assert fast.result == general.result
    assert fast.battles == general.battles


@pytest.mark.parametrize("out_of_cards", ["last_card", "lose"])
def test_short_stocks_and_stuck_draws_end_alike(out_of_cards):
    rules = build_rules("standard", {"out_of_cards": out_of_cards})
    # Equal cards all the way down: every battle is a war until someone runs short.
    deal = [[0, 13, 26, 39, 1, 14], [13, 26, 0, 39, 14, 1]]
    deal = [[c for c in stock] for stock in deal]
    fast = _play_two_seats(rules, [list(s) for s in deal], None)
    general = play_dealt(rules, [list(s) for s in deal], None, record_events=True)
    assert fast.result == general.result and fast.battles == general.battles


def test_the_one_down_preset_with_two_seats_agrees_too():
    fast, general = both_ways("one_down", {"seats": 2}, "ab" * 32)
    assert fast.result == general.result and fast.battles == general.battles
