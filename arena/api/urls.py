"""API routes, mounted at /api/."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.routers import DefaultRouter

from arena.api import abtests, notifications, tournament_views, views
from arena.api.parsers import JSONParser
from arena.api.throttles import TokenThrottle

router = DefaultRouter()
router.register("games", views.GameViewSet, basename="game")
router.register("ladders", views.LadderViewSet, basename="ladder")
router.register("bots", views.BotViewSet, basename="bot")
router.register("matches", views.MatchViewSet, basename="match")
router.register("challenges", views.ChallengeViewSet, basename="challenge")
router.register("tournaments", tournament_views.TournamentViewSet, basename="tournament")
router.register("abtests", abtests.ABTestViewSet, basename="abtest")

urlpatterns = [
    path("auth/token/", ObtainAuthToken.as_view(throttle_classes=[TokenThrottle],
                                                parser_classes=[FormParser, MultiPartParser, JSONParser]),
         name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("notifications/", notifications.NotificationListView.as_view(), name="notification-list"),
    path("notifications/unread/", notifications.NotificationUnreadView.as_view(), name="notification-unread"),
    path("notifications/read/", notifications.NotificationReadView.as_view(), name="notification-read"),
    path("notifications/settings/", notifications.NotificationSettingsView.as_view(), name="notification-settings"),
    path("", include(router.urls)),
]
