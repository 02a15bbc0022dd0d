"""Helpers for service and API tests: fixing the cards of a player's next round."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time

from casino.engine import shoe_cards
from casino.models import SeedPair
from casino.services.fairness import seed_pair_active


def set_next_round(player, *, tie: bool, player_wins: bool | None = None) -> list[str]:
    """Choose the player's client seed so that the next round's first cards tie (or not, and the
    player wins or loses). Returns the first seven cards of that round's shoe."""
    pair = seed_pair_active(player=player)
    for n in range(10_000):
        client_seed = f"fixed-{n}"
        cards = shoe_cards(
            server_seed=pair.server_seed, client_seed=client_seed, nonce=pair.next_nonce, decks=6, cards=7
        )
        is_tie = cards[0].rank == cards[1].rank
        if is_tie != tie:
            continue
        if player_wins is not None and not tie and (cards[0].rank > cards[1].rank) != player_wins:
            continue
        if tie and player_wins is not None and (cards[5].rank >= cards[6].rank) != player_wins:
            continue
        SeedPair.objects.filter(pk=pair.pk).update(client_seed=client_seed)
        return [c.code for c in cards]
    raise AssertionError("no client seed found")


def sign(partner, secret: str, method: str, path: str, body: bytes = b"") -> dict[str, str]:
    timestamp = str(int(time.time()))
    nonce = secrets.token_hex(8)
    signature = hmac.new(
        secret.encode(), f"{timestamp}.{nonce}.{method}.{path}.".encode() + body, hashlib.sha256
    ).hexdigest()
    return {
        "HTTP_X_PARTNER_KEY": partner.key_id,
        "HTTP_X_TIMESTAMP": timestamp,
        "HTTP_X_NONCE": nonce,
        "HTTP_X_SIGNATURE": signature,
    }


class PartnerClient:
    """A Django test client that signs every request like a partner casino."""

    def __init__(self, client, partner, secret):
        self.client, self.partner, self.secret = client, partner, secret

    def request(self, method: str, path: str, data=None, **headers):
        body = b"" if data is None else json.dumps(data).encode()
        signed = sign(self.partner, self.secret, method, path, body)
        if method == "GET":
            return self.client.get(path, **signed, **headers)
        call = getattr(self.client, method.lower())
        return call(path, data=body, content_type="application/json", **signed, **headers)

    def get(self, path, **headers):
        return self.request("GET", path, **headers)

    def post(self, path, data=None, **headers):
        return self.request("POST", path, data, **headers)

    def put(self, path, data=None, **headers):
        return self.request("PUT", path, data, **headers)
