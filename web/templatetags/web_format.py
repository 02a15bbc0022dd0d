"""Template filters of the web front end: money and moments in the page's language, cards as cards."""

from django import template
from django.utils.html import format_html
from django.utils.translation import get_language

from casino.engine import card as parse_card
from core.templatetags.moments import when
from ledger.money import format_money

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_LABELS = {"T": "10"}


@register.filter
def money(minor_units, currency: str) -> str:
    if minor_units is None:
        return ""
    return format_money(int(minor_units), currency)


@register.filter
def playing_card(code: str | None):
    """A card as the web shows it: rank and suit symbol, red or black, with a spoken label."""
    if not code:
        return ""
    c = parse_card(code)
    if c.suit == "":
        return format_html('<span class="card joker" title="{}">★</span>', code)
    rank = RANK_LABELS.get(c.code[0], c.code[0])
    colour = "red" if c.suit in "HD" else "black"
    return format_html(
        '<span class="card {}" title="{}"><span class="rank">{}</span><span class="suit">{}</span></span>',
        colour,
        code,
        rank,
        SUIT_SYMBOLS[c.suit],
    )


@register.filter
def percent(fraction: float, digits: int = 4) -> str:
    text = f"{fraction * 100:.{int(digits)}f}\u00a0%"  # a no-break space: never a lone "%" on the next line
    language = get_language() or "en"
    return text if language.startswith("en") else text.replace(".", ",")


# Moments are written by core's one filter (core/templatetags/moments.py), here under the same name.
register.filter("when", when)
