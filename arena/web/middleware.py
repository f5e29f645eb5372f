"""Answers the site gives before (or instead of) a view's.

- A page for an address opened with a method it does not take: Django answers a view that takes
  only POST (a form's button: challenge, delete, enter a ladder) with an empty 405 when the address
  is opened in a browser (a bookmarked or shared link), a blank page. The site shows its own page,
  which says what the address is for; the API keeps its JSON answer.
- A 400 for an address holding a NUL byte (``RefuseNulBytes``).
"""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import render

from arena.api.errors import is_api_request


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
