"""The site's routes plus one that fails, to see the 500 page."""

from django.urls import include, path


def boom(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("boom/", boom), path("", include("arena.urls"))]
