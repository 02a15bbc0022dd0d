"""Money and numbers as each of the service's languages writes them (one rule, also in app.js).

English puts the symbol first with a comma for thousands (`€1,234.50`); Portuguese and Spanish
put it after, with a point for thousands and a comma for decimals (`1.234,50 €`); the Brazilian
real is written first in every language (`R$ 1.234,50`).
"""

from __future__ import annotations

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "BRL": "R$"}
MINOR_DIGITS = 2  # every currency the service holds has cents


def _separators(language: str) -> tuple[str, str]:
    """(thousands, decimal) separators."""
    return (",", ".") if not language or language.startswith("en") else (".", ",")


def format_number(value: int, *, language: str, decimals: int = 0) -> str:
    """An integer count of 10**-decimals units, e.g. 123450 with decimals=2 -> 1,234.50 or 1.234,50."""
    thousands, decimal = _separators(language)
    sign = "-" if value < 0 else ""
    units, fraction = divmod(abs(value), 10**decimals)
    grouped = f"{units:,}".replace(",", thousands)
    return f"{sign}{grouped}{decimal}{fraction:0{decimals}d}" if decimals else f"{sign}{grouped}"


def format_money(minor: int, currency: str, *, language: str) -> str:
    number = format_number(abs(minor), language=language, decimals=MINOR_DIGITS)
    sign = "-" if minor < 0 else ""
    symbol = SYMBOLS.get(currency)
    if symbol is None:
        return f"{sign}{number} {currency}"
    if currency == "BRL":
        return f"{sign}R$ {number}"
    if not language or language.startswith("en"):
        return f"{sign}{symbol}{number}"
    return f"{sign}{number} {symbol}"


def parse_money(text: str, *, language: str) -> int:
    """Minor units from an amount a person typed ("1,234.50" in English, "1.234,50" in Portuguese or
    Spanish, or plain "50"); ValueError when it is not one."""
    thousands, decimal = _separators(language)
    cleaned = text.strip().replace(" ", "").replace(thousands, "")
    if decimal != ".":
        cleaned = cleaned.replace(decimal, ".")
    units, _, fraction = cleaned.partition(".")
    if not units.isdigit() or (fraction and (not fraction.isdigit() or len(fraction) > MINOR_DIGITS)):
        raise ValueError(f"{text!r} is not an amount")
    return int(units) * 10**MINOR_DIGITS + int(fraction.ljust(MINOR_DIGITS, "0") or 0)
