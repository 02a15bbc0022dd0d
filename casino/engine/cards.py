"""Cards, decks and shoes (RULES.md section 1 and the canonical order of section 2).

Every distinct card of the game world is one `Card` object, made once: decks and shoes are
tuples of these objects, so comparing and hashing them is cheap. A card's `id` is its position
in the canonical 54-card order (S H D C, 2 to A, then X1 X2).
"""

from __future__ import annotations

from dataclasses import dataclass

from casino.engine.errors import InvalidCardError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"
JOKER_RANK = 15  # above the ace (14); the two jokers are equal to each other
ACE = 14
RANK_NAMES = {r: RANK_CHARS[r - 2] for r in range(2, 15)} | {JOKER_RANK: "X"}


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    rank: int  # 2..14 for 2..A, 15 for a joker
    suit: str  # S H D C, or "" for a joker
    code: str  # "AS", "TD", "X1"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK


def _make_cards() -> tuple[Card, ...]:
    cards = [
        Card(id=s * 13 + (r - 2), rank=r, suit=suit, code=RANK_CHARS[r - 2] + suit)
        for s, suit in enumerate(SUIT_CHARS)
        for r in range(2, 15)
    ]
    cards += [
        Card(id=52, rank=JOKER_RANK, suit="", code="X1"),
        Card(id=53, rank=JOKER_RANK, suit="", code="X2"),
    ]
    return tuple(cards)


ALL_CARDS: tuple[Card, ...] = _make_cards()
CARD_BY_CODE: dict[str, Card] = {card.code: card for card in ALL_CARDS}
JOKERS: tuple[Card, Card] = (ALL_CARDS[52], ALL_CARDS[53])


def card(code: str) -> Card:
    """The card named by `code` (`"AS"`, `"TD"`, `"X1"`); `10` is accepted for `T`."""
    if not isinstance(code, str):
        raise InvalidCardError(f"a card is a string such as 'AS', not {code!r}")
    normalized = code.strip().upper().replace("10", "T")
    try:
        return CARD_BY_CODE[normalized]
    except KeyError:
        raise InvalidCardError(f"{code!r} is not a card (rank of 23456789TJQKA and suit of SHDC, or X1/X2)") from None


def deck(size: int = 52, *, jokers: bool = False) -> tuple[Card, ...]:
    """A fresh deck in canonical order: suit by suit (S H D C), each 2 to A (or its low rank to A)."""
    lowest = {52: 2, 36: 6, 32: 7}.get(size)
    if lowest is None:
        raise InvalidCardError(f"no {size}-card deck: decks have 52, 36 or 32 cards")
    cards = tuple(c for c in ALL_CARDS[:52] if c.rank >= lowest)
    return cards + JOKERS if jokers else cards


def shoe(decks: int) -> tuple[Card, ...]:
    """A fresh Casino War shoe: `decks` full 52-card decks one after another."""
    if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 8:
        raise InvalidCardError(f"a shoe holds 1 to 8 decks, not {decks!r}")
    return deck(52) * decks
