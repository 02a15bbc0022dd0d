"""The player's wallet (API.md `GET wallet/`): the ledger's, or, for a seamless partner's player,
the balance its partner's wallet tells (a `balance` call) beside the money in play in our books."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.views import APIView

from casino.services.wallets import wallet_balance_get
from core.api import answer, problems
from core.shapes import schema_of
from ledger.selectors import player_wallet_summary
from ledger.shapes import WalletShape


class WalletView(APIView):
    @extend_schema(
        responses={200: schema_of(WalletShape), **problems(401, 403, 404, 503)}, summary="The player's wallet"
    )
    def get(self, request, **kwargs):
        summary = player_wallet_summary(player=request.player)
        if request.player.is_seamless:
            summary["balance"] = wallet_balance_get(player=request.player)
        return answer(WalletShape(**summary))


player_endpoints = [("wallet/", WalletView, "wallet")]
