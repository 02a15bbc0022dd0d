"""The casino's paths under /api/v1/: public ones here, player endpoints in `player_endpoints`
(mounted for players and partners by config/urls.py)."""

from django.urls import path

from casino.api import fairness, launch, matches, rounds, tables, wallet

urlpatterns = [
    path("tables/", tables.TableListView.as_view(), name="tables"),
    path("war/presets/", matches.WarPresetListView.as_view(), name="war-presets"),
    path("matches/", matches.MatchListView.as_view(), name="matches"),
    path("matches/<str:match_id>/", matches.MatchDetailView.as_view(), name="match"),
    path("matches/<str:match_id>/decision/", matches.MatchDecisionView.as_view(), name="match-decision"),
    path("partner/sessions/demo/", launch.DemoSessionListView.as_view(), name="partner-demo-sessions"),
    path(
        "partner/sessions/demo/<str:session_id>/", launch.DemoSessionDetailView.as_view(), name="partner-demo-session"
    ),
]

player_endpoints = [*rounds.player_endpoints, *fairness.player_endpoints, *wallet.player_endpoints]
partner_endpoints = launch.partner_endpoints  # a partner's, for its player: game launch
