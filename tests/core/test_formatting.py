import pytest

from core.formatting import format_money, format_number


@pytest.mark.parametrize(
    ("minor", "currency", "language", "text"),
    [
        (123450, "EUR", "en", "€1,234.50"),
        (123450, "EUR", "pt-br", "1.234,50 €"),
        (123450, "EUR", "es", "1.234,50 €"),
        (-5, "EUR", "en", "-€0.05"),
        (-123450, "EUR", "es", "-1.234,50 €"),
        (100, "USD", "en", "$1.00"),
        (123450, "BRL", "pt-br", "R$ 1.234,50"),
        (123450, "BRL", "en", "R$ 1,234.50"),
        (100000000, "CHF", "en", "1,000,000.00 CHF"),
        (0, "GBP", "es", "0,00 £"),
    ],
)
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
    from core.formatting import parse_money

    assert parse_money(text, language=language) == minor


@pytest.mark.parametrize("text", ["", "abc", "-5", "1.234", "1.2.3", "5.001", "1e3"])
def test_what_is_not_an_amount_is_refused(text):
    from core.formatting import parse_money

    with pytest.raises(ValueError):
        parse_money(text, language="en")
