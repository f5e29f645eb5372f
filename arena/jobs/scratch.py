"""Scratch folders: where a task writes the bots' archives from the database for the runner.

A task's folder is removed when the task ends; a task that is killed (SIGKILL, a lost machine)
leaves it behind with the bots' code inside. Folder names carry the host and process id of their
task, so a worker can tell its machine's leftovers from the folders of tasks still running:
:func:`scratch_remove_stale` removes the folders of dead processes of this host, and any older than
a task may live (whatever host made it). Workers call it when they start and, throttled, before
their tasks and in the recovery sweep; it also clears the sandbox slots no live match holds.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from workers.sandbox import clear_idle_slots

log = logging.getLogger(__name__)

PREFIX = "arena-"
# arena-<kind>-<id>-<host>-<pid>-<random>; older folders have no host or pid (arena-<kind>-<id>-<random>).
NAME = re.compile(r"^arena-(?P<kind>match|smoke)-(?P<id>\d+)-(?:(?P<host>[A-Za-z0-9.]+)-p(?P<pid>\d+)-)?")
_last_cleanup = 0.0


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.]", ".", socket.gethostname())[:60] or "host"


@contextmanager
def scratch_folder(kind: str, pk: int) -> Iterator[Path]:
    """A private temporary folder for task ``kind`` (``match`` or ``smoke``) of row ``pk``."""
    with tempfile.TemporaryDirectory(prefix=f"{PREFIX}{kind}-{pk}-{_host()}-p{os.getpid()}-") as folder:
        yield Path(folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def scratch_is_stale(name: str, *, age: float, host: str | None = None) -> bool:
    """Whether the scratch folder ``name``, last changed ``age`` seconds ago, is a leftover."""
    found = NAME.match(name)
    if found is None:
        return False
    if age > settings.MATCH_HARD_TIME_LIMIT + settings.MATCH_STUCK_GRACE:
        return True  # no task lives that long
    if found["pid"] is None or found["host"] != (host or _host()):
        return False  # another machine's (a shared temporary folder): only its age tells
    return not _alive(int(found["pid"]))


def scratch_remove_stale(*, root: Path | None = None) -> list[Path]:
    """Remove the leftover scratch folders in ``root`` (the temporary folder) and the staging of
    sandbox slots no match holds; returns the scratch folders removed."""
    global _last_cleanup
    _last_cleanup = time.monotonic()
    root = Path(root or tempfile.gettempdir())
    removed = []
    now = time.time()
    try:
        entries = list(os.scandir(root))
    except OSError as exc:
        log.warning("cannot list %s for stale scratch folders: %s", root, exc)
        entries = []
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if scratch_is_stale(entry.name, age=age):
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.exists(entry.path):
                removed.append(Path(entry.path))
    if removed:
        log.warning("removed %d scratch folder(s) that killed tasks left behind", len(removed))
    _clear_idle_sandbox_slots()
    return removed


def scratch_remove_stale_now_and_then(every: float = 60.0) -> None:
    """:func:`scratch_remove_stale` at most once per ``every`` seconds in this process."""
    if time.monotonic() - _last_cleanup >= every:
        try:
            scratch_remove_stale()
        except Exception:  # never let housekeeping fail a task
            log.exception("cleaning stale scratch folders failed")


def _clear_idle_sandbox_slots() -> None:
    # The sandbox package owns its staging folders; this only asks it to clear the idle ones.

    try:
        cleared = clear_idle_slots()
    except OSError as exc:
        log.warning("cannot clear idle sandbox slots: %s", exc)
        return
    if cleared:
        log.warning("removed the staged bots %d killed match(es) left in sandbox slots", cleared)
