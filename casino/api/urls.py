from django.urls import include, path

from casino.api import views as v

player_paths = [
    path("wallet/", v.WalletView, name="wallet"),
    path("wallet/transactions/", v.WalletTransactionsView, name="wallet-transactions"),
    path("rounds/", v.RoundListView, name="rounds"),
    path("rounds/<str:round_id>/", v.RoundDetailView, name="round"),
    path("rounds/<str:round_id>/decision/", v.RoundDecisionView, name="round-decision"),
    path("fairness/", v.FairnessView, name="fairness"),
    path("fairness/rotate/", v.FairnessRotateView, name="fairness-rotate"),
    path("protection/", v.ProtectionView, name="protection"),
    path("protection/limits/", v.LimitsView, name="protection-limits"),
    path("protection/exclusions/", v.ExclusionsView, name="protection-exclusions"),
    path("protection/reality-check/", v.RealityCheckView, name="protection-reality-check"),
    path("protection/session/", v.SessionFiguresView, name="protection-session"),
]


def _as(paths, variant=lambda view: view, prefix=""):
    return [path(str(p.pattern), variant(p.callback).as_view(), name=f"{prefix}{p.name}") for p in paths]


app_name = "api"
urlpatterns = [
    path("tables/", v.TableListView.as_view(), name="tables"),
    path("players/", v.SignupView.as_view(), name="signup"),
    path("auth/token/", v.TokenView.as_view(), name="token"),
    path("auth/session/", v.SessionView.as_view(), name="session"),
    path("war/presets/", v.WarPresetListView.as_view(), name="war-presets"),
    path("matches/", v.MatchListView.as_view(), name="matches"),
    path("matches/<str:match_id>/", v.MatchDetailView.as_view(), name="match"),
    path("matches/<str:match_id>/decision/", v.MatchDecisionView.as_view(), name="match-decision"),
    *_as(player_paths),
    path("partner/players/<str:external_id>/", v.PartnerPlayerView.as_view(), name="partner-player"),
    path("partner/players/<str:external_id>/transfers/", v.PartnerTransferView.as_view(), name="partner-transfers"),
    path(
        "partner/players/<str:external_id>/",
        include(_as(player_paths, v.partner_variant, prefix="partner-")),
    ),
]
