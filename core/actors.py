"""Who acts: a player, a partner casino, a staff member or a system job.

Every change of money or state records its actor (ledger entries, audit events, limits, rounds),
and the API scopes idempotency keys by it. One type for all of them, in the lowest layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:  # accounts is above core (pyproject's layers): for the annotations only
    from accounts.models import Partner, Player, User


class ActorType(models.TextChoices):
    PLAYER = "player", "Player"
    PARTNER = "partner", "Partner"
    OPERATOR = "operator", "Operator"
    SYSTEM = "system", "System job"


@dataclass(frozen=True, slots=True)
class Actor:
    type: ActorType
    id: str

    @property
    def scope(self) -> str:
        """What the actor's idempotency keys are scoped to ("player:12", "partner:3")."""
        return f"{self.type}:{self.id}"

    @classmethod
    def player(cls, player: Player) -> Actor:
        return cls(ActorType.PLAYER, str(player.pk))

    @classmethod
    def partner(cls, partner: Partner) -> Actor:
        return cls(ActorType.PARTNER, str(partner.pk))

    @classmethod
    def operator(cls, user: User) -> Actor:
        return cls(ActorType.OPERATOR, str(user.pk))

    @classmethod
    def system(cls, job: str) -> Actor:
        return cls(ActorType.SYSTEM, job)
