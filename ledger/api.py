"""The ledger's HTTP surface: the lines of a player's wallet (API.md). Player endpoints: who the
player is comes from the scope they are mounted with (`accounts.api`), as `request.player`."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from core.api import PAGE_PARAMETERS, answer, paginated, problems
from core.shapes import page_of, schema_of
from ledger.models import JournalEntry, Posting
from ledger.selectors import player_wallet_lines
from ledger.shapes import WalletLineShape


def _partner_reference(entry: JournalEntry) -> str | None:
    """A partner's transfer: its reference (the accounts app's Transfer, joined by its entry)."""
    if entry.reference_type != "transfer":
        return None
    transfer = getattr(entry, "transfer", None)  # (a reverse one-to-one: AttributeError when none)
    return transfer.reference if transfer is not None else None


def wallet_line_representation(line: Posting) -> WalletLineShape:
    return WalletLineShape(
        id=str(line.pk),
        kind=line.entry.kind,
        amount=line.signed_amount,
        balance_after=line.balance_after,
        round=line.entry.reference_id if line.entry.reference_type == "round" else None,
        reference=_partner_reference(line.entry),
        created_at=line.entry.created_at,
    )


class WalletLinesView(APIView):
    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: schema_of(page_of(WalletLineShape)), **problems(400, 401, 403, 404)},
        summary="The lines of the player's wallet, newest first",
    )
    def get(self, request, **kwargs):
        lines = player_wallet_lines(player=request.player)
        return answer(paginated(request, self, lines, wallet_line_representation, item=WalletLineShape))


# `GET wallet/` itself is casino/api/wallet.py's: a seamless partner's player's balance is its partner's.
player_endpoints = [("wallet/transactions/", WalletLinesView, "wallet-transactions")]
