"""The common model of RULES.md sections 4 and 8: battles, wars, short stocks, limits, cycles."""

import pytest

from casino.engine.war.records import Reason
from tests.casino.engine.war.helpers import play, summary


def test_higher_card_takes_the_trick_seat_by_seat_to_the_bottom():
    game = play("classic", [["KS", "2C"], ["9H", "3C"]], record_events=True)
    first = game.battles[0].as_json()
    assert first == {"n": 1, "up": ["KS", "9H"], "war_steps": 0, "winner": 0, "counts": [3, 1]}
    take = next(e for e in game.events if e.kind.value == "take")
    assert [c for c in take.as_json()["cards"]] == ["KS", "9H"]


def test_gather_winner_puts_the_winners_cards_first():
    game = play("classic", [["2C", "KS"], ["9H", "3C"]], {"gather": "winner"}, record_events=True)
    take = next(e for e in game.events if e.kind.value == "take")
    assert take.as_json()["cards"] == ["9H", "2C"]


def test_last_card_rule_pagat_example():
    # A and B play sevens; B has one card left, which it turns up: a queen. A's queen ties;
    # B's queen stands while A lays one down and turns up a nine: B takes all seven cards.
    game = play("classic", [["7S", "2C", "QH", "3C", "9D", "4C"], ["7H", "QS"]])
    assert summary(game, 1) == [{"n": 1, "up": ["7S", "7H"], "war_steps": 2, "winner": 1, "counts": [1, 7]}]


def test_last_card_rule_both_stuck_on_equal_last_cards_is_a_stuck_draw():
    game = play("classic", [["7S", "2C", "QH"], ["7H", "QS"]])
    assert game.result.reason is Reason.STUCK_DRAW and game.result.winner is None
    assert game.result.counts == (0, 0)  # the cards on the table count for nobody
    assert summary(game) == [{"n": 1, "up": ["7S", "7H"], "war_steps": 2, "winner": None, "counts": [0, 0]}]


def test_lose_rule_a_short_seat_drops_out_and_its_stock_goes_into_the_trick():
    game = play("classic", [["7S", "2C", "QH", "5D"], ["7H", "KS"]], {"out_of_cards": "lose"}, record_events=True)
    assert game.result.winner == 0 and game.result.reason is Reason.ALL_CARDS
    assert summary(game) == [{"n": 1, "up": ["7S", "7H"], "war_steps": 1, "winner": 0, "counts": [6, 0]}]
    take = next(e for e in game.events if e.kind.value == "take").as_json()["cards"]
    # B had one card after its seven (needs two): it drops, its K goes in after the cards it laid.
    assert take == ["7S", "7H", "KS"]


def test_lose_rule_every_participant_short_with_equal_counts_is_a_short_draw():
    game = play("standard", [["7S", "2C"], ["7H", "3C"]], {"out_of_cards": "lose"})
    assert game.result.reason is Reason.SHORT_DRAW and game.result.counts == (1, 1)


def test_lose_rule_every_participant_short_the_one_with_most_cards_takes_the_trick():
    game = play("standard", [["7S", "2C", "3D"], ["7H", "3C"]], {"out_of_cards": "lose"})
    assert game.result.winner == 0 and summary(game)[0]["counts"] == [5, 0]


def test_short_draw_also_when_a_seat_outside_the_war_has_cards():
    deal = [["7S", "2C"], ["7H", "3C"], ["2D", "4D", "5D", "6D", "8D"]]
    game = play("three_player", deal, {"out_of_cards": "lose"})
    assert game.result.reason is Reason.SHORT_DRAW


def test_war_participants_all_lets_a_seat_that_was_not_tied_fight_and_win():
    deal = [["KS", "2C", "3C"], ["KH", "2D", "4C"], ["5S", "2H", "AC"]]
    game = play("multiplayer", deal)
    assert summary(game, 1)[0]["winner"] == 2


def test_war_participants_tied_only_the_tied_seats_fight():
    deal = [["KS", "2C", "3C", "4S", "5S"], ["KH", "2D", "4C", "6S", "7S"], ["5H", "2H", "AC", "8S", "9S"]]
    game = play("multiplayer", deal, {"war_participants": "tied"})
    assert summary(game, 1)[0] == {"n": 1, "up": ["KS", "KH", "5H"], "war_steps": 1, "winner": 1, "counts": [2, 9, 4]}


def test_a_seat_with_no_cards_stands_on_its_battle_card_under_all_and_can_win():
    deal = [["KS", "2C", "3C"], ["KH", "2D", "4C"], ["AS"]]
    game = play("multiplayer", deal)
    assert game.battles[0].winner == 2


def test_max_battles_with_draw():
    game = play("classic", [["KS", "3S"], ["2H", "4H"]], {"max_battles": 1, "on_limit": "draw"})
    assert game.result.reason is Reason.LIMIT_DRAW and game.result.winner is None and game.result.battles == 1


def test_max_battles_with_count_most_cards_wins_and_a_shared_top_is_no_winner():
    game = play("classic", [["KS", "3S"], ["2H", "4H"]], {"max_battles": 1, "on_limit": "count"})
    assert game.result.reason is Reason.LIMIT_COUNT and game.result.winner == 0
    game = play("classic", [["KS", "3S", "5S"], ["2H", "4H", "AH"]], {"max_battles": 2, "on_limit": "count"})
    assert game.result.reason is Reason.LIMIT_COUNT and game.result.winner is None


def test_all_cards_in_the_last_allowed_battle_ends_all_cards():
    game = play("classic", [["KS"], ["2H"]], {"max_battles": 1, "on_limit": "count"})
    assert game.result.reason is Reason.ALL_CARDS and game.result.winner == 0


def test_a_repeated_position_is_a_cycle_draw():
    # Each battle the winner's pair goes under: the position after battle 2 equals the deal.
    game = play("classic", [["KS", "2H"], ["3D", "AC"]])
    assert game.result.reason is Reason.CYCLE and game.result.winner is None
    assert game.result.battles == len(game.battles)


def test_no_cycle_check_with_a_battle_limit():
    game = play("classic", [["KS", "2H"], ["3D", "AC"]], {"max_battles": 7})
    assert game.result.reason is Reason.LIMIT_DRAW and game.result.battles == 7


def test_a_seat_dealt_nothing_is_out_from_the_start():
    game = play("multiplayer", [["KS", "2C"], [], ["3H", "4H"]])
    assert summary(game, 1)[0]["up"] == ["KS", None, "3H"]


def test_peace_lowest_card_wins_and_five_go_down():
    game = play("peace", [["2S", "KS"], ["3S", "4S"]])
    assert game.battles[0].winner == 0
    deal = [["7S", "AS", "AH", "AD", "AC", "KS", "2C"], ["7H", "QS", "QH", "QD", "QC", "KH", "3C"]]
    game = play("peace", deal)
    assert summary(game, 1)[0] == {"n": 1, "up": ["7S", "7H"], "war_steps": 1, "winner": 0, "counts": [14, 0]}


def test_peace_jokers_are_the_worst_cards():
    game = play("peace", [["X1", "2C"], ["AS", "3C"]], {"jokers": True})
    assert game.battles[0].winner == 1


def test_gather_shuffle_needs_a_stream():
    from casino.engine.errors import StreamRequiredError

    with pytest.raises(StreamRequiredError):
        play("classic", [["KS"], ["2H"]], {"gather": "shuffle"})
    game = play("classic", [["KS", "3C"], ["2H", "4D"]], {"gather": "shuffle"}, seed="ab" * 32)
    assert game.result.reason is Reason.ALL_CARDS


def test_lose_rule_every_short_seat_drops_with_three_seats_fighting():
    # Three sevens, then a war of 3 down + 1 up: the seats hold 1, 2 and 3 cards, all short.
    # Seat 2 holds the most and takes the trick; seats 0 and 1 both drop out with their stocks.
    deal = [["7S", "2S"], ["7H", "2C", "3H"], ["7D", "3C", "4C", "5C"]]
    game = play("multiplayer", deal, {"out_of_cards": "lose", "down": 3})
    assert summary(game, 1) == [{"n": 1, "up": ["7S", "7H", "7D"], "war_steps": 1, "winner": 2, "counts": [0, 0, 9]}]
    assert game.result.winner == 2 and game.result.reason is Reason.ALL_CARDS
