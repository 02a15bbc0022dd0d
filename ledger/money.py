"""Money: an integer number of minor units and an ISO 4217 currency. Never a float.

The one rounding rule of the service: an amount split in two gives the smaller half to the
player (`half_for_player`), as the rule book's surrender does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext

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


def half_for_player(amount: int) -> int:
    """Of an odd number of minor units the player gets the smaller half."""
    return amount // 2
