"""Who may see and change what: shared by the API and the pages.

Everyone may read bots, ladders, matches and replays. A bot's logs (smoke-test log, match
stderr, fault messages quoting stderr) are private to its owner and staff; only the owner
(or staff, for moderation) may change a bot or upload a version of it.
"""

from __future__ import annotations

from rest_framework import permissions


def can_see_private(user, bot) -> bool:
    """True when ``user`` is the bot's owner or staff."""
    return bool(user is not None and user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


class IsOwnerOrStaffOrReadOnly(permissions.BasePermission):
    """Reads for everyone; writes on an object for its owner and staff only."""

    message = "Only the bot's owner can change it."

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return can_see_private(request.user, obj)
