import pytest

from casino.engine import InvalidCardError, card, deck, shoe


def test_canonical_order_suit_by_suit_two_to_ace_then_jokers():
    cards = deck(52, jokers=True)
    assert [c.code for c in cards[:3]] == ["2S", "3S", "4S"]
    assert cards[12].code == "AS" and cards[13].code == "2H" and cards[51].code == "AC"
    assert [c.code for c in cards[52:]] == ["X1", "X2"]


def test_short_decks_list_only_their_ranks():
    assert [c.code for c in deck(36)[:9]] == ["6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]
    assert len(deck(36)) == 36 and len(deck(32)) == 32 and deck(32)[0].code == "7S"


def test_shoe_repeats_whole_decks():
    assert len(shoe(8)) == 416 and shoe(2)[52].code == "2S"
    with pytest.raises(InvalidCardError):
        shoe(9)


def test_jokers_rank_above_aces_and_equal_each_other():
    assert card("X1").rank == card("X2").rank > card("AS").rank


@pytest.mark.parametrize("bad", ["1S", "AZ", "", "XX", 7])
def test_unknown_cards_are_refused(bad):
    with pytest.raises(InvalidCardError):
        card(bad)


def test_ten_may_be_written_10():
    assert card("10H") is card("TH")
