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
