"""A page for an address opened with a method it does not take.

Django answers a view that takes only POST (a form's button: challenge, delete, enter a ladder)
with an empty 405 when the address is opened in a browser (a bookmarked or shared link): a blank
page. The site shows its own page instead, which says what the address is for; the API keeps its
JSON answer.
"""

from __future__ import annotations

from django.shortcuts import render


class MethodNotAllowedPage:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or request.path.startswith("/api/") or response.content:
            return response
        allowed = [m.strip() for m in response.get("Allow", "").split(",") if m.strip()]
        page = render(request, "405.html", {"allowed": allowed, "method": request.method}, status=405)
        if "Allow" in response:
            page["Allow"] = response["Allow"]
        return page
