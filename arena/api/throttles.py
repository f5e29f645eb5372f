"""Throttles for the expensive writes: uploads (each runs a smoke test) and challenge matches."""

from __future__ import annotations

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle


class _ScopedUserThrottle(UserRateThrottle):
    """Per user (per address when anonymous); the rate is read from settings on every request,
    so ``override_settings`` and a changed environment take effect without a restart."""

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class UploadThrottle(_ScopedUserThrottle):
    """``uploads``: new bots and new versions."""

    scope = "uploads"


class ChallengeThrottle(_ScopedUserThrottle):
    """``challenges``: unrated challenge matches."""

    scope = "challenges"


class TokenThrottle(SimpleRateThrottle):
    """``auth``: password attempts at /api/auth/token/, per client address (guessing passwords)."""

    scope = "auth"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
