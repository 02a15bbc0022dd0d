from django import template

from ledger.money import Money

register = template.Library()


@register.filter
def money(minor_units: int, currency: str) -> str:
    """Minor units as an amount with its currency: 1050, "EUR" -> "10.50 EUR"."""
    return str(Money(int(minor_units), currency))


@register.filter
def percent(fraction: float, digits: int = 4) -> str:
    return f"{fraction * 100:.{int(digits)}f} %"
