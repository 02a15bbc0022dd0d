"""The bulk path gives, deal for deal, the reference engine's result (winner, reason, battles,
counts, wars and double wars), cycles included."""

import pytest

from casino.engine.fairness import HmacStream
from casino.engine.war import build_rules, play_dealt, seeded_deal
from casino.odds.bulk import REASONS, play_many, supports
from casino.odds.validation import seed_bytes
from casino.odds.war_stats import simulate

CASES = [
    ("standard", {}, 250),
    ("classic", {}, 250),
    ("one_down", {}, 1000),
    ("one_down", {"seats": 4, "out_of_cards": "lose"}, 300),
    ("multiplayer", {"seats": 3, "war_participants": "tied"}, 300),
    ("three_player", {"out_of_cards": "lose"}, 300),
    ("peace", {"jokers": True}, 200),
    ("standard", {"gather": "winner", "split_jokers": True}, 300),
    ("standard", {"max_battles": 50, "on_limit": "count"}, 300),
]


@pytest.mark.parametrize(("preset", "options", "games"), CASES)
def test_deal_for_deal_the_same_as_the_reference(preset, options, games):
    rules = build_rules(preset, options)
    key = seed_bytes(f"bulk-{preset}-{sorted(options.items())}")
    deals = [seeded_deal(rules, HmacStream(key, "deal", n)) for n in range(games)]
    rows = play_many(rules, deals)
    for deal, row in zip(deals, rows, strict=True):
        reference = play_dealt(rules, deal, None, record_events=False)
        result = reference.result
        assert (None if row[0] < 0 else row[0], REASONS[row[1]], row[2]) == (
            result.winner,
            result.reason.value,
            result.battles,
        )
        assert tuple(row[5 : 5 + rules.seats]) == result.counts
        assert row[3] == sum(1 for b in reference.battles if b.war_steps >= 1)
        assert row[4] == sum(1 for b in reference.battles if b.war_steps >= 2)


def test_statistics_are_the_same_on_both_paths():
    slow = simulate("one_down", {"max_battles": 400}, games=60, seed="same").as_json()
    fast = simulate("one_down", {"max_battles": 400}, games=60, seed="same", bulk=True).as_json()
    assert slow == fast


def test_variants_outside_the_common_model_are_refused():
    assert not supports(build_rules("pyanitsa")) and not supports(build_rules("standard", {"gather": "shuffle"}))
    with pytest.raises(ValueError):
        play_many(build_rules("razboi"), [])
