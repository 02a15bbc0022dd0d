"""The ledger's answers, each declared once (core/shapes.py): the API sends them and /api/schema/
documents them."""

from __future__ import annotations

from datetime import datetime

from core.shapes import shape, shape_field
from ledger.models import EntryKind


@shape
class WalletShape:
    currency: str
    balance: int = shape_field("What the player can bet now, in minor units.")
    in_play: int = shape_field("Staked on rounds not settled yet.")


@shape
class WalletLineShape:
    id: str
    kind: str = shape_field(
        "What moved the money: " + "; ".join(f"`{kind.value}` ({kind.label.lower()})" for kind in EntryKind)
    )
    amount: int = shape_field("Signed: negative leaves the wallet.")
    balance_after: int
    round: str | None = shape_field("The round this line belongs to, if any.")
    reference: str | None = shape_field(
        "A partner's transfer (`transfer_in`, `transfer_out`): the partner's reference."
    )
    created_at: datetime
