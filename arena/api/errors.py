"""Errors in the API's language: JSON error pages under /api/ (HTML elsewhere), and a service's
ValidationError as a 400 naming the input field it concerns (``api_error``).

Error pages: JSON under /api/, the HTML pages elsewhere.

Django's own 400, 404 and 500 pages are HTML; a client of the API (and the schema, which documents
JSON errors) expects ``{"detail": ...}`` even for an address no route matches.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.views import defaults
from rest_framework.exceptions import ValidationError


def is_api_request(request) -> bool:
    """Whether ``request`` is one of the API's (it is answered in JSON)."""
    return request.path.startswith("/api/")


def not_found(request, exception=None):
    """404: ``{"detail": "Not found."}`` under /api/, the site's page elsewhere."""
    if is_api_request(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request, exception=None):
    """400 from Django itself (a body over DATA_UPLOAD_MAX_MEMORY_SIZE, too many fields or files):
    JSON under /api/ saying which, the site's page elsewhere."""
    if is_api_request(request):
        if isinstance(exception, RequestDataTooBig):
            detail = (f"The request body is too large (more than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes "
                      "besides uploaded files).")
        elif isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
            detail = str(exception)
        else:
            detail = "Bad request."
        return JsonResponse({"detail": detail}, status=400)
    return defaults.bad_request(request, exception)


def server_error(request):
    """500: JSON under /api/ (no details: they are in the server's log), the site's page elsewhere."""
    if is_api_request(request):
        return JsonResponse({"detail": "Server error: the arena could not answer this request."}, status=500)
    return defaults.server_error(request)


def api_error(exc: DjangoValidationError, fields: dict[str, str], default: str) -> ValidationError:
    """A service's ValidationError as a 400 naming the input field it concerns."""
    if hasattr(exc, "error_dict"):
        return ValidationError(exc.message_dict)
    code = getattr(exc, "code", None)
    return ValidationError({fields.get(code, default): exc.messages}, code=code)
