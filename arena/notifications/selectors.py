"""Reads of a user's notifications, shared by the pages and the API."""

from __future__ import annotations

from arena.notifications.models import Notification


def notifications_unread_count(*, user) -> int:
    """The bell's number (a partial index serves it)."""
    if not user.is_authenticated:
        return 0
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notifications_of(*, user, unread_only: bool = False):
    """``user``'s notifications, newest first."""
    rows = Notification.objects.filter(user=user)
    if unread_only:
        rows = rows.filter(read_at__isnull=True)
    return rows.order_by("-id")
