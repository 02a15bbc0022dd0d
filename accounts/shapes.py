"""The accounts' answers, each declared once (core/shapes.py): the API sends them and /api/schema/
documents them."""

from __future__ import annotations

from datetime import datetime

from accounts.models import TransferDirection
from core.shapes import shape, shape_field


@shape
class PlayerShape:
    id: str
    username: str
    email: str
    currency: str
    external_id: str | None = shape_field("The partner's id of its player; null otherwise.")


@shape
class TokenShape:
    token: str = shape_field('Send it as "Authorization: Token <token>".')


@shape
class PasswordChangedShape:
    token: str | None = shape_field("Signed in with a token: a new one (every token ended); with the session: null.")


@shape
class TransferListedShape:
    id: str
    player: str = shape_field("The player's external id.")
    direction: TransferDirection
    amount: int
    currency: str
    reference: str = shape_field("The partner's reference: one transfer per reference.")
    created_at: datetime


@shape
class TransferShape(TransferListedShape):
    balance: int = shape_field("The wallet's balance after the transfer.")
