"""The notification pages: the feed (mark read), and the kinds a user wants in the site and by e-mail."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.functional import SimpleLazyObject
from django.views.decorators.http import require_POST

from arena.notifications.models import Kind
from arena.notifications.selectors import notifications_of, notifications_unread_count
from arena.notifications.services import notifications_mark_read, preferences_of, preferences_set

PAGE_SIZE = 50


def unread_notifications(request) -> dict:
    """Context processor: the bell's count, read only when a page shows the bell (signed in)."""
    return {"unread_notifications": SimpleLazyObject(lambda: notifications_unread_count(user=request.user))}


@login_required
def notifications(request):
    """Your notifications, newest first; unread ones stand out."""
    page = Paginator(notifications_of(user=request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "web/notifications.html", {"page": page})


@login_required
@require_POST
def notifications_read(request):
    """Mark one notification (``id``) or all of them read, then back to the feed (or the page it points to)."""
    raw = request.POST.get("id", "")
    if raw and not (raw.isascii() and raw.isdigit() and 0 < int(raw) < 2**63):
        return HttpResponseBadRequest("The id is a notification's number.")
    notifications_mark_read(user=request.user, ids=[int(raw)] if raw else None)
    target = request.POST.get("next", "")
    return redirect(target if target.startswith("/") and not target.startswith("//") else "web:notifications")


@login_required
def notification_settings(request):
    """Which kinds you are told of, in the site and by e-mail."""
    if request.method == "POST":
        choices = {kind.value: {"site": f"{kind.value}-site" in request.POST, "email": f"{kind.value}-email" in request.POST}
                   for kind in Kind}
        preferences_set(user=request.user, choices=choices)
        messages.success(request, "Your notification settings are saved.")
        return redirect("web:notification_settings")
    current = preferences_of(user=request.user)
    rows = [{"kind": kind.value, "label": kind.label, **current[kind.value]} for kind in Kind]
    return render(request, "web/notification_settings.html", {"rows": rows, "has_email": bool(request.user.email)})
