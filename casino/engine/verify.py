"""The stand-alone verifier: recompute a Casino War round's cards from the revealed seed."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from casino.engine.cards import Card, shoe
from casino.engine.fairness import HmacStream, LazyShuffle, server_seed_hash


def shoe_cards(*, server_seed: str, client_seed: str, nonce: int, decks: int, cards: int | None = None) -> list[Card]:
    """The first `cards` cards (or the whole shoe) of the shoe of that seed pair and nonce."""
    lazy = LazyShuffle(shoe(decks), HmacStream(server_seed, client_seed, nonce))
    count = lazy.remaining if cards is None else min(cards, lazy.remaining)
    return [lazy.draw() for _ in range(count)]


@dataclass(frozen=True)
class RoundCards:
    player: Card
    dealer: Card
    burned: tuple[Card, ...]
    player_war: Card
    dealer_war: Card


@dataclass(frozen=True)
class Verification:
    hash_matches: bool | None
    server_seed_hash: str
    cards: RoundCards


def verify_round(
    *,
    server_seed: str,
    client_seed: str,
    nonce: int,
    decks: int = 6,
    burn: int = 3,
    published_hash: str | None = None,
) -> Verification:
    """Check the revealed seed against the hash shown in advance and recompute the round's cards
    (player, dealer, burned cards, then the war cards, which only count if the round went to war)."""
    dealt = shoe_cards(server_seed=server_seed, client_seed=client_seed, nonce=nonce, decks=decks, cards=4 + burn)
    actual_hash = server_seed_hash(server_seed)
    matches = None if published_hash is None else hmac.compare_digest(actual_hash, published_hash.lower())
    return Verification(
        hash_matches=matches,
        server_seed_hash=actual_hash,
        cards=RoundCards(dealt[0], dealt[1], tuple(dealt[2 : 2 + burn]), dealt[2 + burn], dealt[3 + burn]),
    )
