"""Război, P'yanitsa, Tod und Leben and the refusals of RULES.md section 8."""

import pytest

from casino.engine.errors import InvalidDealError, InvalidRulesError, StreamRequiredError
from casino.engine.fairness import HmacStream
from casino.engine.war import play_tod_und_leben_match
from casino.engine.war.records import Reason
from casino.engine.war.rules import build_rules
from tests.casino.engine.war.helpers import play, summary

SEED = "5e" * 32


# --- Război -----------------------------------------------------------------------------------


def test_razboi_war_is_as_long_as_the_tied_rank():
    # Tied threes: each lays three cards, the last face up.
    deal = [["3S", "2C", "4C", "KC", "5S"], ["3H", "2D", "4D", "QD", "5H"]]
    game = play("razboi", deal, record_events=True)
    assert summary(game, 1)[0] == {"n": 1, "up": ["3S", "3H"], "war_steps": 1, "winner": 0, "counts": [9, 1]}
    downs = [e for e in game.events if e.kind.value == "face_down"]
    assert [len(e.cards) for e in downs] == [2, 2]


def test_razboi_short_war_every_participant_lays_as_many_as_the_fewest():
    # Tied kings would need ten cards each; seat 1 holds two, so both lay two.
    deal = [["KS", "2C", "AC", "5C", "6C"], ["KH", "2D", "QD"]]
    game = play("razboi", deal)
    assert summary(game, 1)[0]["winner"] == 0 and summary(game, 1)[0]["counts"] == [8, 0]


def test_razboi_a_participant_with_no_card_when_a_war_starts_is_out():
    game = play("razboi", [["KS", "2C"], ["KH"]])
    assert game.result.winner == 0 and game.result.reason is Reason.ALL_CARDS


def test_razboi_every_participant_without_cards_is_a_short_draw():
    game = play("razboi", [["KS"], ["KH"]])
    assert game.result.reason is Reason.SHORT_DRAW


def test_razboi_value_table_is_an_option():
    deal = [["KS", "2C", "AC", "5C"], ["KH", "2D", "QD", "4D"]]
    game = play("razboi", deal, {"values": {"K": 2}})
    assert summary(game, 1)[0]["winner"] == 0 and summary(game, 1)[0]["counts"] == [7, 1]


def test_razboi_repeated_war_uses_the_newly_tied_rank():
    # Twos tie (2 cards each, last up): fours tie; then a war of four cards.
    deal = [["2S", "9C", "4S", "5C", "6C", "7C", "AC"], ["2H", "9D", "4H", "5D", "6D", "7D", "KD"]]
    game = play("razboi", deal)
    assert summary(game, 1)[0] == {"n": 1, "up": ["2S", "2H"], "war_steps": 2, "winner": 0, "counts": [14, 0]}


# --- P'yanitsa --------------------------------------------------------------------------------


def test_pyanitsa_needs_a_stream():
    with pytest.raises(StreamRequiredError):
        play("pyanitsa", [["6S"], ["AS"]])


@pytest.mark.parametrize(
    ("deal", "winner"),
    [
        ([["AS"], ["6H"], ["KD"]], 1),  # A-6-K: the six wins
        ([["AS"], ["AH"], ["6D"]], 2),  # A-A-6: the six wins
        ([["6S"], ["KH"], ["7D"]], 1),  # no ace: the six is the lowest
    ],
)
def test_pyanitsa_six_beats_the_ace(deal, winner):
    game = play("pyanitsa", deal, seed=SEED)
    assert game.battles[0].winner == winner


def test_pyanitsa_sixes_tie_over_an_ace_and_every_seat_fights():
    game = play("pyanitsa", [["6S", "7S"], ["6H", "8H"], ["AD", "9D"]], seed=SEED)
    first = summary(game, 1)[0]
    assert first["war_steps"] == 1 and first["winner"] == 2


def test_pyanitsa_with_52_cards_the_two_beats_the_ace():
    game = play("pyanitsa", [["AS"], ["2H"]], {"deck": "52"}, seed=SEED)
    assert game.battles[0].winner == 1


def test_pyanitsa_down_up_lays_one_face_down():
    game = play("pyanitsa", [["9S", "7C", "KS"], ["9H", "8C", "QH"]], {"tie": "down_up"}, seed=SEED)
    assert summary(game, 1)[0]["winner"] == 0 and summary(game, 1)[0]["counts"] == [6, 0]


def test_pyanitsa_broke_two_seats_the_first_out_loses_the_other_wins():
    game = play("pyanitsa", [["KS", "QS"], ["9H"]], seed=SEED)
    assert game.result.as_json() == {
        "winner": 0,
        "reason": "all_cards",
        "battles": 1,
        "counts": [3, 0],
        "loser": 1,
    }


def test_pyanitsa_broke_more_seats_the_loser_and_no_winner():
    game = play("pyanitsa", [["KS", "QS"], ["9H"], ["TD", "JD"]], seed=SEED)
    assert game.result.as_json() == {
        "winner": None,
        "reason": "broke",
        "battles": 1,
        "counts": [4, 0, 1],
        "loser": 1,
    }


def test_pyanitsa_a_seat_that_lays_its_last_card_and_wins_plays_on():
    game = play("pyanitsa", [["KS"], ["9H", "7C"]], seed=SEED)
    assert game.battles[0].winner == 0 and game.battles[0].counts == (2, 1)


def test_pyanitsa_drunkard_the_seat_left_holding_all_cards_loses():
    game = play("pyanitsa", [["KS", "QS"], ["9H"]], {"objective": "drunkard"}, seed=SEED)
    assert game.result.as_json() == {
        "winner": 1,
        "reason": "all_cards",
        "battles": 1,
        "counts": [3, 0],
        "loser": 0,
    }


def test_pyanitsa_limit_count_roles():
    deal = [["KS", "QS", "JS"], ["9H", "TH"], ["7D", "8D"]]
    broke = play("pyanitsa", deal, {"max_battles": 1, "on_limit": "count"}, seed=SEED)
    assert broke.result.winner == 0 and broke.result.loser is None  # seats 1 and 2 share the fewest
    drunk = play("pyanitsa", deal, {"max_battles": 1, "on_limit": "count", "objective": "drunkard"}, seed=SEED)
    assert drunk.result.loser == 0 and drunk.result.winner is None


# --- Tod und Leben ----------------------------------------------------------------------------


def test_tod_und_leben_scores_tricks_and_ties_grow_the_trick():
    game = play("tod_und_leben", [["AS", "9S", "KS"], ["7H", "9H", "QH"]])
    assert [b.as_json() for b in game.battles] == [
        {"n": 1, "up": ["AS", "7H"], "war_steps": 0, "winner": 0, "counts": [2, 0]},
        {"n": 2, "up": ["9S", "9H"], "war_steps": 1, "winner": 0, "counts": [6, 0]},
    ]
    assert game.result.as_json() == {"winner": 0, "reason": "scored", "battles": 2, "counts": [6, 0]}


def test_tod_und_leben_a_tie_on_the_last_cards_gives_each_seat_its_own_cards_back():
    game = play("tod_und_leben", [["AS", "9S"], ["7H", "9H"]])
    assert game.battles[-1].as_json() == {
        "n": 2,
        "up": ["9S", "9H"],
        "war_steps": 1,
        "winner": None,
        "counts": [3, 1],
    }
    game = play("tod_und_leben", [["AS", "9S"], ["AH", "9H"]])
    assert game.result.as_json() == {"winner": None, "reason": "scored", "battles": 1, "counts": [2, 2]}


def test_tod_und_leben_refuses_stocks_of_different_sizes_and_three_seats():
    with pytest.raises(InvalidDealError):
        play("tod_und_leben", [["AS", "9S"], ["7H"]])
    with pytest.raises(InvalidRulesError, match="2 seats"):
        play("tod_und_leben", [["AS"], ["7H"], ["8H"]])


def test_tod_und_leben_match_reshuffles_every_round():
    match = play_tod_und_leben_match(build_rules("tod_und_leben"), 5, HmacStream(SEED))
    assert len(match.rounds) == 5 and sum(match.rounds_won) + match.drawn_rounds == 5
    assert len({g.deal for g in match.rounds}) == 5
    assert all(sum(g.result.counts) == 32 for g in match.rounds)


# --- Refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "options", "why"),
    [
        ("peace", {"down": 1}, "five cards"),
        ("one_down", {"down": 3}, "exactly one"),
        ("tod_und_leben", {"down": 1}, "no card face down"),
        ("razboi", {"down": 2}, "value"),
        ("pyanitsa", {"down": 1}, "tie"),
        ("steal", {"gather": "winner"}, "capture piles"),
        ("steal", {"out_of_cards": "last_card"}, "loses"),
        ("razboi", {"jokers": True}, "jokers"),
        ("pyanitsa", {"jokers": True}, "jokers"),
        ("tod_und_leben", {"jokers": True}, "jokers"),
        ("standard", {"seats": 3}, "2 seats"),
        ("multiplayer", {"seats": 2}, "3 to 4"),
        ("standard", {"gather": "pile"}, "seat/winner/shuffle"),
        ("standard", {"down": "3"}, "type"),
        ("standard", {"colour": "red"}, "unknown option"),
        ("standard", {"values": {"K": 4}}, "Război"),
        ("chess", {}, "unknown preset"),
    ],
)
def test_impossible_options_are_refused_with_a_reason(preset, options, why):
    with pytest.raises(InvalidRulesError, match=why):
        build_rules(preset, options)


@pytest.mark.parametrize("deal", [[["AS", "AS"], ["KH"]], [["AS", "ZZ"], ["KH"]], [["6S"], ["2H"]], [[], []], "AS KH"])
def test_bad_deals_are_refused(deal):
    from casino.engine.errors import EngineError

    with pytest.raises(EngineError):
        play("pyanitsa" if deal == [["6S"], ["2H"]] else "standard", deal, seed=SEED)


def test_split_jokers_puts_one_joker_in_each_of_two_seats():
    from casino.engine.war import play_war

    for nonce in range(20):
        game = play_war("standard", {"split_jokers": True}, seed=SEED, nonce=nonce)
        stocks = game.deal_cards()
        holders = [s for s, stock in enumerate(stocks) if any(c.is_joker for c in stock)]
        assert holders == [0, 1] and [len(s) for s in stocks] == [27, 27]
    game = play_war("multiplayer", {"split_jokers": True, "seats": 3}, seed=SEED)
    assert sum(len(s) for s in game.deal) == 51 + 2
