"""What the round benchmarks play with: a table, players with tokens and money, a partner casino
with players of its own; and how a partner signs a request (API.md), for load generators."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

FUNDS = 10**12


def bench_setup(*, players: int, partner_players: int, decision_timeout_s: int = 1, wallet_url: str = "") -> dict:
    """Run inside a configured Django (django.setup() done): everything a benchmark needs. With
    `wallet_url` the partner is a seamless one: its players' money is in that wallet, none moves in."""
    from accounts.models import TransferDirection
    from accounts.partners import partner_player_upsert, partner_transfer
    from accounts.services import partner_create, player_create

    try:
        from accounts.tokens import token_issue
    except ImportError:  # a checkout from before expiring tokens (BENCH_ROOT)
        from rest_framework.authtoken.models import Token

        def token_issue(*, user):
            return Token.objects.create(user=user).key

    from casino.models import Table
    from core.actors import Actor
    from ledger.services import wallet_deposit

    table = Table.objects.create(
        name=f"Bench {secrets.token_hex(3)}",
        min_bet=100,
        max_bet=100_000,
        bet_step=100,
        max_tie_bet=0,
        decision_timeout_s=decision_timeout_s,
    )
    tokens = []
    for n in range(players):
        player = player_create(username=f"bench{n}", password=None)
        wallet_deposit(player=player, amount=FUNDS, idempotency_key=f"fund{n}", actor=Actor.system("bench"))
        tokens.append(token_issue(user=player.user))
    partner, secret = partner_create(name="Bench partner", **({"wallet_url": wallet_url} if wallet_url else {}))
    external_ids = []
    for n in range(partner_players):
        external_id = f"bench-p{n}"
        player, _ = partner_player_upsert(partner=partner, external_id=external_id, currency="EUR")
        if not wallet_url:
            partner_transfer(
                partner=partner,
                player=player,
                direction=TransferDirection.IN,
                amount=FUNDS,
                reference=f"fund-{external_id}",
            )
        external_ids.append(external_id)
    return {
        "table": str(table.pk),
        "tokens": tokens,
        "partner_key": partner.key_id,
        "partner_secret": secret,
        "external_ids": external_ids,
    }


def partner_headers(key_id: str, secret: str, method: str, path: str, body: bytes) -> dict[str, str]:
    timestamp, nonce = str(int(time.time())), secrets.token_hex(16)
    message = f"{timestamp}.{nonce}.{method}.{path}.".encode() + body
    return {
        "X-Partner-Key": key_id,
        "X-Timestamp": timestamp,
        "X-Nonce": nonce,
        "X-Signature": hmac.new(secret.encode(), message, hashlib.sha256).hexdigest(),
    }
