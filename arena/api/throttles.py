"""Throttles of the API: anonymous reads (per address, weighted by the rows asked), the expensive
writes (uploads run a smoke test, challenges a match) and password attempts at /api/auth/token/.
Who a client is and the counters: ``arena.throttling``."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, UserRateThrottle

from arena.api.pagination import MAX_PAGE_SIZE
from arena.throttling import client_address, login_throttle_hit, throttle_hit


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


class AnonymousReadThrottle(BaseThrottle):
    """``anon_reads`` and ``anon_reads_burst``: reads (GET, HEAD, OPTIONS) by clients that are not signed
    in, per address, counted in pages of the default size: ``?page_size=200`` counts 8 where a default
    page counts 1. Signed-in users are not counted here (the writes they can make have their own
    throttles)."""

    scope = "anon_reads"
    # Two windows: the minute's budget, and a second's, which refuses most of a burst at once: 200
    # requests of 200 rows fired together had the server answer every one (30 s of work) while a
    # cheap page of anyone else waited in the web server's queue behind them (issue 25.7).
    scopes = ("anon_reads_burst", "anon_reads")

    def __init__(self):
        self._wait: int | None = None

    def allow_request(self, request, view) -> bool:
        user = getattr(request, "user", None)
        if request.method not in ("GET", "HEAD", "OPTIONS") or (user is not None and user.is_authenticated):
            return True
        who, cost = client_address(request), self.cost(request)
        waits = [wait for scope in self.scopes if (wait := throttle_hit(scope, who, cost=cost)) is not None]
        self._wait = max(waits) if waits else None
        return self._wait is None

    @staticmethod
    def cost(request) -> int:
        """Default pages the request asks for: 1, up to ``MAX_PAGE_SIZE / PAGE_SIZE``."""
        raw = request.query_params.get("page_size", "")
        default = api_settings.PAGE_SIZE or 1
        size = min(int(raw), MAX_PAGE_SIZE) if raw.isascii() and raw.isdigit() else default
        return max(1, -(-size // default))

    def wait(self) -> float | None:
        return self._wait


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
