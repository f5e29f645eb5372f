"""Throttles of the API: the expensive writes (uploads run a smoke test, challenges a match) and
password attempts at /api/auth/token/. Who a client is and the counters: ``arena.throttling``."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, UserRateThrottle

from arena.throttling import client_address, login_throttle_hit


class _ScopedUserThrottle(UserRateThrottle):
    """Per user (per address when anonymous); the rate is read from settings on every request,
    so ``override_settings`` and a changed environment take effect without a restart."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_ident(self, request) -> str:
        return client_address(request)


class UploadThrottle(_ScopedUserThrottle):
    """``uploads``: new bots and new versions."""

    scope = "uploads"


class ChallengeThrottle(_ScopedUserThrottle):
    """``challenges``: unrated challenge matches."""

    scope = "challenges"


class TokenThrottle(BaseThrottle):
    """``auth`` per client address and ``auth_user`` per username: password attempts at
    /api/auth/token/, counted with the login page's and the admin's."""

    scope = "auth"

    def __init__(self):
        self._wait: int | None = None

    def allow_request(self, request, view) -> bool:
        # A JSON body need not be an object ([], null, "x"): only an object names a username, and the
        # view then refuses the rest with a 400.
        data = request.data if hasattr(request, "data") else None
        username = data.get("username") if isinstance(data, Mapping) else None
        self._wait = login_throttle_hit(request, username if isinstance(username, str) else None)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
