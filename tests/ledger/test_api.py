"""The ledger's API (ledger/api.py): the wallet and its lines, for the player and its partner."""

import pytest

from accounts.services import partner_create
from tests.casino.helpers import PartnerClient
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_the_wallet_and_a_page_of_its_lines(player_client, player):
    assert player_client.get("/api/v1/wallet/").json() == {"currency": "EUR", "balance": 100_000, "in_play": 0}
    page = player_client.get("/api/v1/wallet/transactions/?limit=1").json()
    assert page["count"] == 1 and page["next"] is None and page["previous"] is None
    (line,) = page["results"]
    assert line["kind"] == "deposit" and line["amount"] == 100_000 and line["balance_after"] == 100_000
    assert line["round"] is None


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "limit=ten", "offset=-1", "limit=1_0"])
def test_a_page_asked_for_out_of_range_is_400(player_client, query):
    response = player_client.get(f"/api/v1/wallet/transactions/?{query}")
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_a_partner_reads_its_players_wallet(client):
    partner, secret = partner_create(name="Wallet Casino")
    make_player(balance=2_500, partner=partner, external_id="w-1")
    api = PartnerClient(client, partner, secret)
    assert api.get("/api/v1/partner/players/w-1/wallet/").json()["balance"] == 2_500
    assert api.get("/api/v1/partner/players/w-1/wallet/transactions/").json()["count"] == 1
    assert api.get("/api/v1/partner/players/w-2/wallet/").status_code == 404
