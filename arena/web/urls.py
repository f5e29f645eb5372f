"""Page routes, mounted at the site root under the ``web`` namespace."""

from django.urls import path, register_converter

from arena.web import abtest_views, account_views, bot_views, live, luck_views, match_views, notification_views, views
from arena.web.converters import IdConverter

register_converter(IdConverter, "id")

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", account_views.signup, name="signup"),
    path("users/<str:username>/", account_views.profile, name="profile"),
    path("games/", views.games, name="games"),
    path("games/<slug:game_id>/", views.game_detail, name="game_detail"),
    path("games/<slug:game_id>/starter-kit.zip", views.starter_kit, name="starter_kit"),
    path("docs/<slug:name>/", views.doc_page, name="doc"),
    path("ladders/", views.ladders, name="ladders"),
    path("ladders/<slug:slug>/", views.ladder_detail, name="ladder_detail"),
    path("ladders/<slug:slug>/compare/", views.ladder_compare, name="ladder_compare"),
    path("tournaments/", views.tournaments, name="tournaments"),
    path("tournaments/<slug:slug>/", views.tournament_detail, name="tournament_detail"),
    path("bots/mine/", bot_views.my_bots, name="my_bots"),
    path("bots/new/", bot_views.bot_create_view, name="bot_create"),
    path("bots/<id:bot_id>/", bot_views.bot_detail, name="bot_detail"),
    path("bots/<id:bot_id>/upload/", bot_views.bot_version_create_view, name="bot_version_create"),
    path("bots/<id:bot_id>/settings/", bot_views.bot_settings_view, name="bot_settings"),
    path("bots/<id:bot_id>/resume/", bot_views.bot_resume_view, name="bot_resume"),
    path("bots/<id:bot_id>/challenge/", bot_views.bot_challenge_view, name="bot_challenge"),
    path("bots/<id:bot_id>/abtest/", abtest_views.abtest_start_view, name="abtest_start"),
    path("abtests/<id:test_id>/", abtest_views.abtest_detail, name="abtest_detail"),
    path("abtests/<id:test_id>/stop/", abtest_views.abtest_stop_view, name="abtest_stop"),
    path("bots/<id:bot_id>/versions/<id:number>/smoke/<id:index>/", bot_views.smoke_test_detail,
         name="smoke_test"),
    path("bots/<id:bot_id>/versions/<id:number>/smoke/<id:index>/replay.json", bot_views.smoke_test_replay,
         name="smoke_test_replay"),
    path("bots/<id:bot_id>/versions/<id:number>/smoke/<id:index>/replay.full.json", bot_views.smoke_test_replay_full,
         name="smoke_test_replay_full"),
    path("live/<slug:kind>/<str:key>/", live.live_token, name="live"),
    path("notifications/", notification_views.notifications, name="notifications"),
    path("notifications/read/", notification_views.notifications_read, name="notifications_read"),
    path("notifications/settings/", notification_views.notification_settings, name="notification_settings"),
    path("matches/", match_views.matches, name="matches"),
    path("matches/<id:match_id>/", match_views.match_detail, name="match_detail"),
    path("matches/<id:match_id>/replay.json", match_views.match_replay, name="match_replay"),
    path("matches/<id:match_id>/replay.full.json", match_views.match_replay_full, name="match_replay_full"),
    path("matches/<id:match_id>/luck.json", luck_views.match_luck, name="match_luck"),
    path("matches/<id:match_id>/logs/<id:seat>/", match_views.match_log, name="match_log"),
]
