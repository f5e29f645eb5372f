"""Database connections in workers: reused across tasks, replaced when the server dropped them.

Celery's Django fixup would close every connection around every task (a new PostgreSQL session
per task); with ``CELERY_DB_REUSE_MAX`` it leaves them open and ``arena/celery.py`` calls
:func:`close_broken_connections` around each task instead: a connection is kept unless it broke
or is older than ``CONN_MAX_AGE``, and Django checks a kept one before its first query.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connections

log = logging.getLogger(__name__)
T = TypeVar("T")


def close_broken_connections() -> None:
    """Close this thread's connections that failed (the server dropped them) or are too old, so the
    next query opens a fresh one. Connections inside a transaction are left alone."""
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            continue
        try:
            connection.close_if_unusable_or_obsolete()
        except Exception as exc:  # closing a dead connection may fail too; Django has dropped it anyway
            log.debug("closing a broken connection failed: %s", exc)


def retrying_on_a_dropped_connection(action: Callable[[], T]) -> T:
    """Run ``action``; when the database connection dropped under it, once more on a fresh one
    (``action`` is one transaction: a dropped connection rolled it back)."""
    try:
        return action()
    except (OperationalError, InterfaceError) as exc:
        log.warning("database connection lost (%s): trying again on a new one", exc)
        close_broken_connections()
        return action()
