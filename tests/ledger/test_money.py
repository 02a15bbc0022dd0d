import pytest

from core.errors import CurrencyMismatch, InvalidAmount
from ledger.money import Money, half_for_player


def test_money_is_integer_minor_units_with_a_currency():
    assert Money(1050, "EUR") + Money(50, "EUR") == Money(1100, "EUR")
    assert str(Money(-1050, "EUR")) == "-10.50 EUR"


@pytest.mark.parametrize("amount", [10.5, "10", True, None])
def test_non_integers_are_refused(amount):
    with pytest.raises(InvalidAmount):
        Money(amount, "EUR")


@pytest.mark.parametrize("amount", [0, -1, 1.0])
def test_positive_refuses_zero_negative_and_float(amount):
    with pytest.raises(InvalidAmount):
        Money.positive(amount, "EUR")


def test_currencies_do_not_mix():
    with pytest.raises(CurrencyMismatch):
        Money(1, "EUR") + Money(1, "USD")
    with pytest.raises(InvalidAmount):
        Money(1, "eur")


def test_the_rounding_rule_gives_the_player_the_smaller_half():
    assert half_for_player(1001) == 500 and half_for_player(1000) == 500
