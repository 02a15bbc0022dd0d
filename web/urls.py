from django.urls import path

from web import game, views

app_name = "web"
urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("rules/", views.rules, name="rules"),
    path("terms/", views.terms, name="terms"),
    path("signup/", views.signup, name="signup"),
    path("signin/", views.signin, name="signin"),
    path("signout/", views.signout, name="signout"),
    path("language/", views.language_set, name="language"),
    path("wallet/", views.wallet, name="wallet"),
    path("wallet/top-up/", views.wallet_top_up, name="wallet-top-up"),
    path("account/password/", views.password_change, name="password"),
    path("tables/<int:table_id>/", views.table_play, name="table"),
    path("history/", views.history, name="history"),
    path("history/<str:round_id>/", views.round_recall, name="round"),
    path("fairness/", views.fairness, name="fairness"),
    path("play-safe/", views.protection, name="protection"),
    path("play-safe/change/", views.protection_change, name="protection-change"),
    path("war/", views.war, name="war"),
]

# The pages of a game session launched by a partner (web/game.py).
urlpatterns += [
    path("play/launch/<str:token>/", game.launch, name="game-launch"),
    path("play/jsi18n/<str:language>/", game.catalog, name="game-catalog"),
    path("play/<str:session_id>/", game.lobby, name="game-lobby"),
    path("play/<str:session_id>/tables/<int:table_id>/", game.table, name="game-table"),
    path("play/<str:session_id>/history/", game.history, name="game-history"),
    path("play/<str:session_id>/state/", game.state, name="game-state"),
    path("play/<str:session_id>/end/", game.end, name="game-end"),
]
