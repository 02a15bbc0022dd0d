"""Money in the back office: every amount an operator reads or types is money in its currency.

Amounts are stored as integers of minor units; staff read them written by `format_money` (`€6.00`)
in list columns, detail pages and reports, and type them in major units (`6.00`, or `6,00` in a
Portuguese or Spanish admin) in forms.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin

from ledger.money import MAX_MINOR_UNITS, MINOR_DIGITS, format_money, format_number, parse_money


def money_text(minor: int | None, currency: str) -> str:
    """An amount as staff read it; a dash where there is none (an unresolved round's net)."""
    return "-" if minor is None else format_money(minor, currency)


def money_column(field: str, description: str, *, currency: Callable[[object], str] | str = "currency"):
    """A list or detail column showing `field` as money; `currency` names the object's currency
    field, or is a function of the object (a limit's currency is its player's)."""

    def currency_of(obj) -> str:
        return currency(obj) if callable(currency) else getattr(obj, currency)

    @admin.display(description=description, ordering=field)
    def show(self, obj):
        return money_text(getattr(obj, field), currency_of(obj))

    show.__name__ = f"{field}_money"
    return show


class MoneyInput(forms.TextInput):
    """Minor units shown as the amount a person types: 600 -> "6.00"."""

    def format_value(self, value):
        if isinstance(value, int):
            return format_number(value, decimals=MINOR_DIGITS, grouped=False)
        return super().format_value(value)


class MoneyField(forms.Field):
    """An amount typed in major units ("6", "6.00", "1,234.50"; "6,00" in Portuguese and Spanish),
    cleaned to an integer of minor units. Negative amounts only where `allow_negative`."""

    widget = MoneyInput

    def __init__(self, *, currency_hint: str = "", allow_negative: bool = False, **kwargs):
        self.allow_negative = allow_negative
        kwargs.setdefault("help_text", f"In {currency_hint}, e.g. 6.00" if currency_hint else "e.g. 6.00")
        super().__init__(**kwargs)
        self.widget.attrs.setdefault("inputmode", "decimal")

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, int):
            return value
        text = str(value).strip()
        negative = text.startswith("-")
        if negative and not self.allow_negative:
            raise forms.ValidationError("Enter a positive amount.", code="negative")
        try:
            minor = parse_money(text.removeprefix("-"))
        except ValueError:
            raise forms.ValidationError("Enter an amount such as 6.00.", code="invalid") from None
        if minor > MAX_MINOR_UNITS:
            raise forms.ValidationError("That amount is too large.", code="too_large")
        return -minor if negative else minor
