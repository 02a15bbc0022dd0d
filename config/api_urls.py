"""/api/v1/: every app's HTTP surface, mounted under the paths of API.md. Player endpoints (the
wallet, rounds, fairness, protection) are mounted twice by `accounts.api.player_paths`: for the
signed-in player, and under `partner/players/<external_id>/` for a partner acting for it."""

from django.urls import include, path

from accounts import api as accounts_api
from casino.api import urls as casino_api
from ledger import api as ledger_api
from protection import api as protection_api

player_endpoints = [
    *casino_api.player_endpoints,
    *ledger_api.player_endpoints,
    *protection_api.player_endpoints,
]

app_name = "api"
# Players' endpoints first (rounds lead them): they take most requests.
urlpatterns = [
    *accounts_api.player_paths(player_endpoints, partner=False),
    *accounts_api.player_paths(player_endpoints, partner=True),
    *accounts_api.player_paths(casino_api.partner_endpoints, partner=True),
    path("", include(casino_api.urlpatterns)),
    path("", include(accounts_api.urlpatterns)),
]
