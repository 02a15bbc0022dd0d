"""Helpers for service and API tests: fixing the cards of a player's next round."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from datetime import timedelta

from django.utils import timezone

from casino.engine import shoe_cards
from casino.models import Round, RoundStatus, SeedPair
from casino.services.fairness import seed_pair_active
from casino.services.rounds import round_decide, round_place
from core.actors import Actor


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


def play_history(*, players, tables, days: int, per_day: int, war_every: int = 2) -> list:
    """Rounds really played (placed, ties decided: war, or surrender every `war_every`-th tie, and
    settled), then moved back in time: about `per_day` rounds (a few more or fewer, day by day) on
    each of the last `days` UTC days, today included, at every table. Returns the rounds."""
    now = timezone.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    placed = []
    ties = 0
    for day in range(days):
        count = max(1, per_day + (day * 5) % 7 - 3)
        for n in range(count):
            player, table = players[(day + n) % len(players)], tables[n % len(tables)]
            bet = table.min_bet * (1 + (day + n) % 3)
            tie = table.bet_step if table.max_tie_bet and n % 4 == 0 else 0
            round_ = round_place(
                player=player, table_id=table.pk, main_bet=bet, tie_bet=tie, actor=Actor.player(player)
            )
            if round_.status == RoundStatus.AWAITING_DECISION:
                ties += 1
                action = "surrender" if ties % war_every == 0 else "war"
                round_ = round_decide(player=player, round_id=round_.id, action=action, actor=Actor.player(player))
            start = midnight - timedelta(days=day)
            end = now if day == 0 else start + timedelta(days=1)
            moment = start + (end - start) * (n + 1) / (count + 1)
            Round.objects.filter(pk=round_.pk).update(created_at=moment, resolved_at=moment)
            Round.objects.filter(pk=round_.pk, settled_at__isnull=False).update(
                settled_at=moment + timedelta(milliseconds=120 + 40 * (n % 5))
            )
            placed.append(round_)
    return placed
