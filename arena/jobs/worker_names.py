"""Worker names: how a task's process is recorded on the row it claims, and whether it is gone.

A name is ``node@host:pid``: the Celery node and the pool process. The process that records a
lost pool process (``arena/jobs/lost_process.py``) and the recovery of redelivered messages read
it back.
"""

from __future__ import annotations

import os
import socket


def worker_name(task=None) -> str:
    """``node@host:pid`` of the Celery worker process running ``task`` (``host:pid`` outside Celery)."""
    node = getattr(getattr(task, "request", None), "hostname", None) or socket.gethostname()
    return f"{node}:{os.getpid()}"


def worker_is_gone(worker: str, *, node: str | None) -> bool:
    """Whether ``worker`` (``node@host:pid`` as recorded on a match) is a process of the Celery node
    ``node`` (this machine's worker) that no longer exists: a pool process that was killed."""
    recorded_node, _, pid = worker.rpartition(":")
    if not node or recorded_node != node or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
