"""Leases: a worker running a piece of work keeps a stamp on its row in the future.

A task that claims a row (a match, a smoke test) sets its lease to now + ``MATCH_LEASE_SECONDS``
and renews it every ``MATCH_HEARTBEAT_SECONDS`` while it works (:class:`Heartbeat`). A lease in the
past means its worker is gone (killed, its machine lost, frozen): the recovery sweep puts the work
back in the queue then, without waiting for the task's time limits.

Renewals come from one thread per process with a database connection of its own, kept across
tasks: a long, database-free match (the runner) keeps renewing, and a worker does not open a new
PostgreSQL session per task for its heartbeat. A lease stops being renewed at the task's hard time
limit, so a runaway task cannot hold its work for ever.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connections
from django.utils import timezone

from arena.jobs.connections import close_broken_connections

log = logging.getLogger(__name__)


def lease_until(now: datetime | None = None) -> datetime:
    """When a lease taken or renewed at ``now`` runs out."""
    return (now or timezone.now()) + timedelta(seconds=settings.MATCH_LEASE_SECONDS)


@dataclass
class _Held:
    queryset: object
    field: str
    label: str
    deadline: float | None
    heartbeat: Heartbeat


class _Renewer:
    """The process's heartbeat thread: renews every registered lease each interval."""

    def __init__(self):
        self.pid = os.getpid()
        self.held: dict[int, _Held] = {}
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="lease-heartbeat", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while not self.stopping:
                self.wake.wait(float(settings.MATCH_HEARTBEAT_SECONDS))
                self.wake.clear()
                with self.lock:
                    held = list(self.held.items())
                if self.stopping or not held:
                    continue
                close_broken_connections()  # this thread's connection: replaced if the server dropped it
                for key, lease in held:
                    self._renew(key, lease)
        finally:
            connections.close_all()  # this thread's own connections only

    def stop(self) -> None:
        self.stopping = True
        self.wake.set()
        self.thread.join(timeout=10)

    def _renew(self, key: int, lease: _Held) -> None:
        if lease.deadline is not None and time.monotonic() > lease.deadline:
            log.warning("lease of %s no longer renewed: the task's time limit has passed", lease.label)
            self.drop(key)
            return
        try:
            renewed = lease.queryset.update(**{lease.field: lease_until()})
        except Exception as exc:  # the database is unreachable: the next beat tries on a new connection
            log.warning("could not renew the lease of %s: %s", lease.label, exc)
            return
        with self.lock:
            if key not in self.held:
                return  # the task ended meanwhile (and may have finished the row)
            if renewed:
                lease.heartbeat.beats += 1
                return
            self.held.pop(key)
            if lease.heartbeat.recording:
                return  # the task's own recording ended the hold (the row is done), no one took it over
        lease.heartbeat.lost = True
        log.warning("the lease of %s was taken over: this worker no longer holds it", lease.label)

    def drop(self, key: int) -> None:
        with self.lock:
            self.held.pop(key, None)


_renewer: _Renewer | None = None
_renewer_lock = threading.Lock()
_keys = itertools.count(1)


def _process_renewer() -> _Renewer:
    global _renewer
    with _renewer_lock:
        if _renewer is None or _renewer.pid != os.getpid():  # none yet, or inherited across a fork
            _renewer = _Renewer()
        return _renewer


def lease_renewer_stop() -> None:
    """Stop this process's heartbeat thread and close its connection (a worker process that exits;
    a test run before it drops its database). Leases still held are no longer renewed."""
    global _renewer
    with _renewer_lock:
        renewer, _renewer = _renewer, None
    if renewer is not None and renewer.pid == os.getpid():
        renewer.stop()


class Heartbeat:
    """Renew the lease ``field`` of the row ``queryset`` selects while the ``with`` block runs.

    ``queryset`` selects the row only while this worker still holds it (its id, status running and
    this attempt's number, say): when it matches nothing the work was taken from us and :attr:`lost`
    becomes True. ``label`` names the work in logs; ``deadline``: seconds after which renewing stops.
    """

    def __init__(self, queryset, field: str, *, label: str, deadline: float | None = None):
        self.queryset = queryset
        self.field = field
        self.label = label
        self.deadline = deadline
        self.lost = False
        self.recording = False
        self.beats = 0
        self._key = next(_keys)
        self._renewer: _Renewer | None = None

    def __enter__(self) -> Heartbeat:
        self._renewer = _process_renewer()
        deadline = time.monotonic() + self.deadline if self.deadline else None
        with self._renewer.lock:
            self._renewer.held[self._key] = _Held(self.queryset, self.field, self.label, deadline, self)
        return self

    def finishing(self) -> None:
        """Say that the task now records its work: the lease is still renewed, but a renewal that
        finds the row no longer held is that recording's doing, not another worker's take-over
        (a renewal can land between the commit and the end of the ``with`` block)."""
        self.recording = True

    def __exit__(self, *exc_info) -> None:
        if self._renewer is not None:
            self._renewer.drop(self._key)
