"""Money: an integer number of minor units and an ISO 4217 currency. Never a float.

The service holds the ISO 4217 currencies that have cents (`CURRENCIES`, from the `iso4217`
package's copy of the standard's table), so every amount has two minor digits. The one rounding
rule of the games (a surrender's half) is the engine's: `casino.engine.casino_war.half_for_player`.

The one way to write money for people (mirrored in web/static/web/app.js): English puts the
symbol first with a comma for thousands (`€1,234.50`); Portuguese and Spanish put it after, with
a point for thousands and a comma for decimals (`1.234,50 €`); the Brazilian real is written
first in every language (`R$ 1.234,50`). The space between the amount and its symbol is a
no-break space (U+00A0): an amount is never split across two lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import iso4217
from django.utils.translation import get_language, gettext

from core.errors import CurrencyMismatch, InvalidAmount

_CURRENCY = re.compile(r"^[A-Z]{3}$")
# The largest amount the service accepts anywhere (10 trillion in a 2-decimal currency): far
# beyond any bet, limit or transfer, and safely inside PostgreSQL's bigint.
MAX_MINOR_UNITS = 10**15


def minor_units(value: object, *, name: str = "amount", allow_zero: bool = False) -> int:
    """An amount from the outside world: a JSON integer (not a float, a string or a boolean),
    positive (or zero where allowed) and at most MAX_MINOR_UNITS; otherwise `invalid_amount`."""
    if type(value) is not int or value < 0 or (value == 0 and not allow_zero) or value > MAX_MINOR_UNITS:
        if allow_zero:
            text = gettext("%(name)s must be a non-negative integer of minor units, at most %(max)s")
        else:
            text = gettext("%(name)s must be a positive integer of minor units, at most %(max)s")
        raise InvalidAmount(text % {"name": name, "max": MAX_MINOR_UNITS})
    return value


@dataclass(frozen=True, slots=True, order=False)
class Money:
    amount: int
    currency: str

    def __post_init__(self) -> None:
        if type(self.amount) is not int:
            raise InvalidAmount(gettext("an amount is an integer of minor units"))
        if not isinstance(self.currency, str) or not _CURRENCY.match(self.currency):
            raise InvalidAmount(gettext("%(currency)r is not an ISO 4217 currency code") % {"currency": self.currency})

    @classmethod
    def positive(cls, amount: object, currency: str) -> Money:
        """A strictly positive amount, or `invalid_amount` (floats, strings, zero, negatives, too large)."""
        return cls(minor_units(amount), currency)

    def _same(self, other: Money) -> None:
        if not isinstance(other, Money) or other.currency != self.currency:
            raise CurrencyMismatch(
                gettext("cannot combine %(one)s with %(other)s")
                % {"one": self.currency, "other": getattr(other, "currency", other)}
            )

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __str__(self) -> str:
        sign = "-" if self.amount < 0 else ""
        units, cents = divmod(abs(self.amount), 100)
        return f"{sign}{units}.{cents:02d} {self.currency}"

    def as_json(self) -> dict[str, object]:
        return {"amount": self.amount, "currency": self.currency}


# --- Written for people -------------------------------------------------------------------------
SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "BRL": "R$"}
NO_BREAK_SPACE = "\u00a0"  # between an amount and its symbol or code
MINOR_DIGITS = 2  # every currency the service holds has cents
CURRENCIES = frozenset(c.code for c in iso4217.Currency if c.exponent == MINOR_DIGITS)


def _separators(language: str) -> tuple[str, str]:
    """(thousands, decimal) separators."""
    return (",", ".") if not language or language.startswith("en") else (".", ",")


def _language(language: str | None) -> str:
    return language or get_language() or "en"


def format_number(value: int, *, language: str | None = None, decimals: int = 0, grouped: bool = True) -> str:
    """An integer count of 10**-decimals units, e.g. 123450 with decimals=2 -> 1,234.50 or 1.234,50
    (1234.50 or 1234,50 not `grouped`: what a person types into a form)."""
    thousands, decimal = _separators(_language(language))
    sign = "-" if value < 0 else ""
    units, fraction = divmod(abs(value), 10**decimals)
    whole = f"{units:,}".replace(",", thousands) if grouped else str(units)
    return f"{sign}{whole}{decimal}{fraction:0{decimals}d}" if decimals else f"{sign}{whole}"


def format_money(minor: int, currency: str, *, language: str | None = None) -> str:
    """Minor units as the language (by default the active one) writes the amount."""
    language = _language(language)
    number = format_number(abs(minor), language=language, decimals=MINOR_DIGITS)
    sign = "-" if minor < 0 else ""
    symbol = SYMBOLS.get(currency)
    if symbol is None:
        return f"{sign}{number}{NO_BREAK_SPACE}{currency}"
    if currency == "BRL":
        return f"{sign}R${NO_BREAK_SPACE}{number}"
    if not language or language.startswith("en"):
        return f"{sign}{symbol}{number}"
    return f"{sign}{number}{NO_BREAK_SPACE}{symbol}"


def money_decimal(minor: int) -> str:
    """Minor units as a plain decimal number of major units ("-1234.50"): how machines read an
    amount (CSV exports), beside a column that names its currency."""
    return format_number(minor, language="en", decimals=MINOR_DIGITS, grouped=False)


def parse_money(text: str, *, language: str | None = None) -> int:
    """Minor units from an amount a person typed ("1,234.50" in English, "1.234,50" in Portuguese or
    Spanish, or plain "50"); ValueError when it is not one."""
    thousands, decimal = _separators(_language(language))
    cleaned = text.strip().replace(" ", "").replace(NO_BREAK_SPACE, "").replace(thousands, "")
    if decimal != ".":
        cleaned = cleaned.replace(decimal, ".")
    units, _, fraction = cleaned.partition(".")
    if not units.isdigit() or (fraction and (not fraction.isdigit() or len(fraction) > MINOR_DIGITS)):
        raise ValueError(f"{text!r} is not an amount")
    return int(units) * 10**MINOR_DIGITS + int(fraction.ljust(MINOR_DIGITS, "0") or 0)
