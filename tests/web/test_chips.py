"""The chips a table offers (web/chips.py): casino denominations that fit its limits and step."""

from hypothesis import given
from hypothesis import strategies as st

from web.chips import CHIP_COUNT, chip_values


def test_a_one_euro_table_has_the_classic_chips():
    assert chip_values(min_bet=100, max_bet=50_000, bet_step=100) == [100, 500, 2_500, 10_000, 50_000]


def test_a_ten_euro_table_in_five_euro_steps_starts_at_ten_and_has_no_odd_chips():
    assert chip_values(min_bet=1_000, max_bet=50_000, bet_step=500) == [1_000, 2_500, 5_000, 10_000, 25_000]
    assert chip_values(min_bet=1_000, max_bet=500_000, bet_step=500) == [1_000, 5_000, 25_000, 100_000, 500_000]


def test_an_unusual_step_counts_the_denominations_in_steps():
    assert chip_values(min_bet=300, max_bet=3_000, bet_step=300) == [300, 1_500, 3_000]
    assert chip_values(min_bet=700, max_bet=70_000, bet_step=700) == [700, 3_500, 7_000, 17_500, 35_000]
    assert chip_values(min_bet=200, max_bet=100_000, bet_step=200) == [200, 1_000, 5_000, 20_000, 100_000]


def test_a_table_of_one_bet_has_one_chip():
    assert chip_values(min_bet=100, max_bet=100, bet_step=100) == [100]


tables = st.integers(min_value=1, max_value=100_000).flatmap(
    lambda step: st.tuples(
        st.just(step),
        st.integers(min_value=1, max_value=50).map(lambda k: k * step),
        st.integers(min_value=1, max_value=20_000),
    )
)


@given(tables)
def test_every_chip_is_on_the_step_within_the_limits_and_a_few_chips_make_the_minimum(table):
    step, min_bet, span = table
    max_bet = min_bet + span * step
    chips = chip_values(min_bet=min_bet, max_bet=max_bet, bet_step=step)
    assert 1 <= len(chips) <= CHIP_COUNT and chips == sorted(set(chips))
    assert all(chip % step == 0 and step <= chip <= max_bet for chip in chips)
    assert chips[0] <= min_bet and min_bet % chips[0] == 0  # the minimum is a stack of the smallest chip
