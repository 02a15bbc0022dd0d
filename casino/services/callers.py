from __future__ import annotations

from dataclasses import dataclass

from ledger.models import ActorType
from ledger.services import Actor


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking: a player for itself, a partner for one of its players, or a system job."""

    type: ActorType
    id: str

    @property
    def scope(self) -> str:
        return f"{self.type}:{self.id}"

    @property
    def actor(self) -> Actor:
        return Actor(self.type, self.id)

    @classmethod
    def player(cls, player) -> Caller:
        return cls(ActorType.PLAYER, str(player.pk))

    @classmethod
    def partner(cls, partner) -> Caller:
        return cls(ActorType.PARTNER, str(partner.pk))

    @classmethod
    def system(cls, job: str) -> Caller:
        return cls(ActorType.SYSTEM, job)
