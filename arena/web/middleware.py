"""Answers the site gives before (or instead of) a view's.

- A page for an address opened with a method it does not take: Django answers a view that takes
  only POST (a form's button: challenge, delete, enter a ladder) with an empty 405 when the address
  is opened in a browser (a bookmarked or shared link), a blank page. The site shows its own page,
  which says what the address is for; the API keeps its JSON answer.
- A 400 for an address holding a NUL byte (``RefuseNulBytes``).
- A 429 for a client that already has ``CLIENT_MAX_IN_FLIGHT`` requests being answered
  (``OneClientOneShare``): one client cannot take every web worker and starve the others.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render

from arena.api.errors import is_api_request
from arena.throttling import InFlight, client_address


class MethodNotAllowedPage:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or is_api_request(request) or response.content:
            return response
        allowed = [m.strip() for m in response.get("Allow", "").split(",") if m.strip()]
        page = render(request, "405.html", {"allowed": allowed, "method": request.method}, status=405)
        if "Allow" in response:
            page["Allow"] = response["Allow"]
        return page


class RefuseNulBytes:
    """A 400 for an address with a NUL byte in its path or query (``%00``).

    PostgreSQL refuses NUL in text, so any such value that reached a query (a username in the path,
    ``?game=`` of a list) was a server error. No id, slug, name or filter of the arena can hold one,
    so the request is refused before any view reads it. (Form and JSON fields refuse NUL themselves:
    Django's and DRF's character fields do.)
    """

    MESSAGE = "The address contains a NUL character (%00), which no address of the arena can hold."

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or any("\x00" in key or any("\x00" in v for v in values)
                                          for key, values in request.GET.lists()):
            if is_api_request(request):
                return JsonResponse({"detail": self.MESSAGE}, status=400)
            return render(request, "400.html", {"message": self.MESSAGE}, status=400)
        return self.get_response(request)


class OneClientOneShare:
    """At most ``CLIENT_MAX_IN_FLIGHT`` requests of one client address (``arena.throttling.client_address``)
    are answered at once, across every web process (``arena.throttling.InFlight``); a request beyond
    that is answered 429 at once, with ``Retry-After: 1``, without touching the database.

    The web server has a few workers (``gunicorn.conf.py``: 2 per core plus one, two threads each). A
    client that sent 200 heavy list requests at once held every one of them for 30 s, and a cheap
    page of anyone else waited 1.6-6.1 s behind them (issue 25.7). Under this cap the client keeps
    at most this many workers busy; the others serve everyone else. Set it to 0 to turn it off
    (a site whose every visitor comes through one proxy address must set ``TRUSTED_PROXIES``).
    """

    MESSAGE = "Too many requests at once from your address: wait for an answer before sending more."

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.CLIENT_MAX_IN_FLIGHT
        if limit <= 0:
            return self.get_response(request)
        place = InFlight(client_address(request), limit=limit, ttl=settings.CLIENT_IN_FLIGHT_TTL)
        if not place.enter():
            if is_api_request(request):
                response = JsonResponse({"detail": self.MESSAGE}, status=429)
            else:   # no template: the refusal must cost next to nothing (no session, no database)
                response = HttpResponse(f"<!doctype html><title>Too many requests</title><h1>Too many requests</h1>"
                                        f"<p>{self.MESSAGE}</p>", status=429, content_type="text/html; charset=utf-8")
            response["Retry-After"] = "1"
            return response
        try:
            return self.get_response(request)
        finally:
            place.leave()
