"""Rate limits that hold: who a client is, and counters every web process shares.

The client is ``REMOTE_ADDR`` unless ``TRUSTED_PROXIES`` reverse proxies stand in front of the
site; each of them appends the address it saw to ``X-Forwarded-For``, so the client is the entry
the outermost trusted proxy appended (what the client sent itself sits to its left and is never
believed). Counters are fixed windows in the cache (``CACHES``: Redis when ``CACHE_URL`` names
one, else a folder every process of the machine shares), counted with ``cache.incr``: atomic on
Redis; on the folder (and in one process's memory) Django's ``incr`` is a read and a write, so
``counter_lock`` makes each count one step (a file lock every process of the machine takes), and
parallel requests cannot slip through between a read and a write. Without it, a flood of 50
parallel requests got about 14 in at once past a cap of 4 (bench/flood.py).

Rates are the REST framework's ``DEFAULT_THROTTLE_RATES`` (``"N/second|minute|hour|day"``), read on
every call so that settings changed by tests or the environment apply at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import ipaddress
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.exceptions import ImproperlyConfigured

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


_LOCAL_LOCK = threading.Lock()
LOCK_FILES = 16


@contextmanager
def counter_lock(key: str):
    """Hold while a counter of ``key`` is read and written: a file lock (one of ``LOCK_FILES``, by
    the key's hash) beside a folder cache, shared by every process of the machine; a thread lock
    for a cache in this process's memory; nothing for Redis, whose ``incr`` is atomic."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, FileBasedCache):
        folder = Path(backend._dir)
        folder.mkdir(parents=True, exist_ok=True)
        bucket = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % LOCK_FILES
        fd = os.open(folder / f".counter-{bucket}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)   # closing releases the lock
    elif isinstance(backend, LocMemCache):
        with _LOCAL_LOCK:
            yield
    else:
        yield


def client_address(request) -> str:
    """The client's IP address as the throttles see it (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = int(getattr(settings, "TRUSTED_PROXIES", 0) or 0)
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
    if not forwarded:
        return remote
    candidate = forwarded[-min(proxies, len(forwarded))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:  # not an address: a proxy that does not append, or a forged header
        return remote


@dataclass(frozen=True)
class Rate:
    """``limit`` requests per ``period`` seconds."""

    limit: int
    period: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"20/minute"`` -> Rate(20, 60); ImproperlyConfigured on anything else."""
        try:
            count, unit = text.split("/")
            limit, period = int(count), PERIODS[unit.strip()[0].lower()]
        except (ValueError, KeyError, IndexError):
            raise ImproperlyConfigured(f"bad throttle rate {text!r}: use N/second, N/minute, N/hour or N/day") from None
        if limit < 0:
            raise ImproperlyConfigured(f"bad throttle rate {text!r}: the count must be >= 0")
        return cls(limit, period)


def rate_for(scope: str) -> Rate | None:
    """The configured rate of ``scope``; None when the scope has none (not throttled)."""
    text = settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(scope)
    return Rate.parse(text) if text else None


def throttle_hit(scope: str, ident: str, *, now: float | None = None, cost: int = 1) -> int | None:
    """Count one request of ``ident`` in ``scope`` (``cost`` units of its rate: a read of 200 rows
    counts as 8 of 25). None when it is allowed; else the seconds until the current window ends (the
    request is refused: it still counts, so hammering does not help)."""
    rate = rate_for(scope)
    if rate is None:
        return None
    now = time.time() if now is None else now
    window = int(now // rate.period)
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    key = f"throttle:{scope}:{digest}:{window}"
    with counter_lock(key):
        cache.add(key, 0, timeout=rate.period + 1)
        try:
            count = cache.incr(key, cost)
        except ValueError:  # expired between add and incr: a new window
            cache.add(key, cost, timeout=rate.period + 1)
            count = cost
    if count <= rate.limit:
        return None
    return max(1, int((window + 1) * rate.period - now) + 1)


def login_throttle_hit(request, username: str | None) -> int | None:
    """Count one password attempt: per client address (``auth``, shared by the API's token
    endpoint, the login page and the admin's) and per username (``auth_user``). None when allowed,
    else the seconds to wait."""
    waits = [throttle_hit("auth", client_address(request))]
    if username:
        waits.append(throttle_hit("auth_user", username.strip().lower()))
    waits = [w for w in waits if w is not None]
    return max(waits) if waits else None


def too_many_message(what: str, wait: int | None) -> str:
    """The message shown when a throttle refuses a request."""
    return f"Too many {what}: try again in {wait} seconds." if wait else f"Too many {what}."


class InFlight:
    """How many requests of one client are being answered right now, across every web process:
    a counter in the cache, up on entry and down on exit (``enter`` says whether the client is
    under ``limit``). It expires ``ttl`` seconds after the client's last request began, so a process
    killed mid-request cannot hold a client's places longer than that."""

    def __init__(self, ident: str, *, limit: int, ttl: int):
        digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self.key, self.limit, self.ttl = f"inflight:{digest}", limit, ttl
        self.entered = False

    def enter(self) -> bool:
        """Take a place; False (and nothing taken) when the client already has ``limit`` requests running."""
        with counter_lock(self.key):
            cache.add(self.key, 0, timeout=self.ttl)
            try:
                count = cache.incr(self.key)
            except ValueError:  # expired between add and incr
                cache.add(self.key, 1, timeout=self.ttl)
                count = 1
            cache.touch(self.key, self.ttl)
            if count > self.limit:
                self._decrement()
                return False
        self.entered = True
        return True

    def leave(self) -> None:
        """Give the place back (once)."""
        if self.entered:
            self.entered = False
            self._down()

    def _down(self) -> None:
        with counter_lock(self.key):
            self._decrement()

    def _decrement(self) -> None:
        """One down, under the counter's lock (held by the caller)."""
        try:
            if cache.decr(self.key) < 0:   # expired and re-created meanwhile: never below zero
                cache.set(self.key, 0, timeout=self.ttl)
        except ValueError:  # expired: nothing to give back
            pass
