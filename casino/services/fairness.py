"""Provably fair seed pairs: created from `secrets`, hash shown first, seed revealed on rotation.
The next server seed is drawn in advance and its hash shown too, so a rotation moves to a seed
committed before the player's new client seed was known."""

from __future__ import annotations

import secrets

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import Player
from casino.engine import server_seed_hash
from casino.models import RoundStatus, SeedPair, server_seed_draw
from core.actors import Actor
from core.audit import audit_record
from core.errors import InvalidInput, RoundAwaitingDecision
from core.text import is_printable_text

CLIENT_SEED_MAX = 64


def client_seed_validate(client_seed: str) -> str:
    if not 1 <= len(client_seed) <= CLIENT_SEED_MAX:
        raise InvalidInput(gettext("the client seed is 1 to %(max)s characters") % {"max": CLIENT_SEED_MAX})
    if not is_printable_text(client_seed):
        raise InvalidInput(gettext("the client seed is printable text"))
    return client_seed


def _seed_pair_new(*, player: Player, client_seed: str | None, server_seed: str | None = None) -> SeedPair:
    """A new pair (not saved): `server_seed` is the one committed in advance by the pair it follows
    (drawn now for a player's first pair), a client seed if none is given, and its own next server
    seed, drawn now and committed by its hash."""
    server_seed = server_seed or server_seed_draw()
    return SeedPair(
        player=player,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(server_seed),
        client_seed=client_seed or secrets.token_hex(8),
        next_server_seed=server_seed_draw(),
    )


def seed_pair_create(*, player: Player, client_seed: str | None = None, server_seed: str | None = None) -> SeedPair:
    pair = _seed_pair_new(player=player, client_seed=client_seed, server_seed=server_seed)
    pair.save(force_insert=True)
    return pair


def seed_pair_active(*, player: Player, lock: bool = False) -> SeedPair:
    """The player's current seed pair (made on first use); `lock` takes its row lock, which
    serialises the player's rounds so that every round gets its own nonce."""
    queryset = SeedPair.objects.filter(player=player, active=True)
    if lock:
        queryset = queryset.select_for_update()
    pair = queryset.first()
    if pair is None:
        with transaction.atomic():
            # The partial unique index allows one active pair: a concurrent creator waits on it.
            SeedPair.objects.bulk_create([_seed_pair_new(player=player, client_seed=None)], ignore_conflicts=True)
        pair = queryset.get()
    return pair


def seed_pair_take_nonce(*, player: Player) -> tuple[SeedPair, int]:
    """The player's active pair and the nonce of its next round, counted up in one statement that
    also takes the pair's row lock until the end of the transaction (one round per nonce)."""
    columns = (
        "id",
        "player_id",
        "server_seed",
        "server_seed_hash",
        "client_seed",
        "next_nonce",
        "active",
        "created_at",
        "revealed_at",
        "next_server_seed",
    )
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE casino_seedpair SET next_nonce = next_nonce + 1 WHERE player_id = %s AND active"
                f" RETURNING {', '.join(columns)}",
                [player.pk],
            )
            row = cursor.fetchone()
        if row is not None:
            pair = SeedPair(**dict(zip(columns, row, strict=True)))
            return pair, pair.next_nonce - 1
        seed_pair_active(player=player)  # the player's first round: make the pair, then count
    raise RuntimeError("no active seed pair")


def seed_pair_rotate(*, player: Player, client_seed: str | None, actor: Actor) -> SeedPair:
    """Reveal the current server seed and start a new pair (nonce 0) on the server seed the current
    pair committed to in advance, whatever the client seed; the new pair commits to a new next seed.
    Refused while a round of the player waits for a decision: its war cards still come from the
    current seed."""
    if client_seed is not None:
        client_seed = client_seed_validate(client_seed)
    with transaction.atomic():
        current = seed_pair_active(player=player, lock=True)
        if current.rounds.filter(status=RoundStatus.AWAITING_DECISION).exists():
            raise RoundAwaitingDecision(gettext("finish the round waiting for a decision before rotating the seed"))
        committed = current.next_server_seed
        current.active = False
        current.revealed_at = timezone.now()
        current.next_server_seed = ""  # the new pair holds it now; a retired pair keeps no secret
        current.save(update_fields=["active", "revealed_at", "next_server_seed"])
        new = seed_pair_create(player=player, client_seed=client_seed or current.client_seed, server_seed=committed)
        audit_record(
            actor_type=actor.type,
            actor_id=actor.id,
            action="seed.rotated",
            obj_type="player",
            obj_id=player.pk,
            revealed_hash=current.server_seed_hash,
            new_hash=new.server_seed_hash,
            next_hash=server_seed_hash(new.next_server_seed),
        )
    return new
