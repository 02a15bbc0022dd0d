import pytest

from core.errors import CurrencyMismatch, InvalidAmount
from ledger.money import CURRENCIES, Money, format_money, format_number, money_decimal, parse_money


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


def test_the_service_holds_iso_4217_currencies_with_cents():
    assert {"EUR", "USD", "GBP", "BRL"} <= CURRENCIES
    assert "ZZZ" not in CURRENCIES and "eur" not in CURRENCIES
    assert "JPY" not in CURRENCIES and "XAU" not in CURRENCIES  # no cents: amounts would be misread


# --- Written for people ---
@pytest.mark.parametrize(
    ("minor", "currency", "language", "text"),
    [
        (123450, "EUR", "en", "€1,234.50"),
        (123450, "EUR", "pt-br", "1.234,50\u00a0€"),
        (123450, "EUR", "es", "1.234,50\u00a0€"),
        (-5, "EUR", "en", "-€0.05"),
        (-123450, "EUR", "es", "-1.234,50\u00a0€"),
        (100, "USD", "en", "$1.00"),
        (123450, "BRL", "pt-br", "R$\u00a01.234,50"),
        (123450, "BRL", "en", "R$\u00a01,234.50"),
        (100000000, "CHF", "en", "1,000,000.00\u00a0CHF"),
        (0, "GBP", "es", "0,00\u00a0£"),
    ],
)  # the space is a no-break space: an amount never breaks across lines
def test_money_is_written_as_each_language_writes_it(minor, currency, language, text):
    assert format_money(minor, currency, language=language) == text


def test_numbers_group_thousands_per_language():
    assert format_number(1234567, language="en") == "1,234,567"
    assert format_number(1234567, language="pt-br") == "1.234.567"
    assert format_number(-1234567, language="es", decimals=2) == "-12.345,67"


@pytest.mark.parametrize(
    ("text", "language", "minor"),
    [
        ("50", "en", 5000),
        ("1,234.5", "en", 123450),
        ("1.234,50", "es", 123450),
        ("0,05", "pt-br", 5),
        (" 7 ", "en", 700),
    ],
)
def test_typed_amounts_are_read_per_language(text, language, minor):

    assert parse_money(text, language=language) == minor


@pytest.mark.parametrize("text", ["", "abc", "-5", "1.234", "1.2.3", "5.001", "1e3"])
def test_what_is_not_an_amount_is_refused(text):

    with pytest.raises(ValueError):
        parse_money(text, language="en")


def test_machines_read_amounts_as_plain_decimals_of_major_units():
    assert [money_decimal(m) for m in (600, -200, 14800, 5, 0, 123456789)] == [
        "6.00",
        "-2.00",
        "148.00",
        "0.05",
        "0.00",
        "1234567.89",
    ]
    assert format_number(123450, language="es", decimals=2, grouped=False) == "1234,50"
