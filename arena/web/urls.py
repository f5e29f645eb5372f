"""Page routes, mounted at the site root under the ``web`` namespace."""

from django.urls import path

from arena.web import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("games/", views.games, name="games"),
    path("games/<slug:game_id>/", views.game_detail, name="game_detail"),
    path("ladders/", views.ladders, name="ladders"),
    path("ladders/<slug:slug>/", views.ladder_detail, name="ladder_detail"),
    path("bots/mine/", views.my_bots, name="my_bots"),
    path("bots/new/", views.bot_create_view, name="bot_create"),
    path("bots/<int:bot_id>/", views.bot_detail, name="bot_detail"),
    path("bots/<int:bot_id>/upload/", views.bot_version_create_view, name="bot_version_create"),
    path("bots/<int:bot_id>/settings/", views.bot_settings_view, name="bot_settings"),
    path("bots/<int:bot_id>/challenge/", views.bot_challenge_view, name="bot_challenge"),
    path("matches/", views.matches, name="matches"),
    path("matches/<int:match_id>/", views.match_detail, name="match_detail"),
    path("matches/<int:match_id>/replay.json", views.match_replay, name="match_replay"),
    path("matches/<int:match_id>/replay.full.json", views.match_replay_full, name="match_replay_full"),
    path("matches/<int:match_id>/logs/<int:seat>/", views.match_log, name="match_log"),
]
