"""The player's wallet (API.md `GET wallet/`): the ledger's, or, for a seamless partner's player,
the balance its partner's wallet tells (a `balance` call) beside the money in play in our books."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.services.wallets import wallet_balance_get
from core.api import problems
from ledger.selectors import player_wallet_summary
from ledger.serializers import WalletSerializer


class WalletView(APIView):
    @extend_schema(responses={200: WalletSerializer, **problems(401, 403, 404, 503)}, summary="The player's wallet")
    def get(self, request, **kwargs):
        summary = player_wallet_summary(player=request.player)
        if request.player.is_seamless:
            summary["balance"] = wallet_balance_get(player=request.player)
        return Response(summary)


player_endpoints = [("wallet/", WalletView, "wallet")]
