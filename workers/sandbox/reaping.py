"""Reaping what outer bwraps leave behind (we are their child subreaper), and finding leftovers."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

_SUBREAPER = False
OUTER_PIDS: set[int] = set()   # outer bwraps of live sandboxes: their status is their Popen's


def _become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux; best effort)."""
    global _SUBREAPER
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0   # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _SUBREAPER = False


def _children() -> list[int]:
    """Pids of this process's children (every thread's), from /proc."""
    found: list[int] = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                found.extend(int(pid) for pid in f.read().split())
    except OSError:
        pass
    return found


def _reap_orphaned_inits(timeout: float = 0.5) -> None:
    """Reap the namespace inits our outer bwraps left behind (we are their subreaper).

    Only children that run ``bwrap`` and are not a live sandbox's outer bwrap (whose status
    belongs to its Popen) are touched.
    """
    if not _SUBREAPER:
        return
    deadline = time.monotonic() + timeout
    while True:
        waiting = False
        for pid in _children():
            if pid in OUTER_PIDS:
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat_line = f.read()
            except OSError:
                continue
            comm = stat_line[stat_line.find("(") + 1:stat_line.rfind(")")]
            state = stat_line[stat_line.rfind(")") + 2:][:1]
            if comm != "bwrap":
                continue
            if state != "Z":
                waiting = True      # killed, not dead yet
                continue
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not waiting or time.monotonic() > deadline:
            return
        time.sleep(0.001)


def _kill_uid_leftovers(pid: int) -> None:
    """Unsafe mode only: kill what is left of the bot's process group."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def slot_processes(uid: int) -> list[int]:
    """Pids of live processes owned by ``uid`` (tests use it to prove nothing is left)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:"):
                if int(line.split()[1]) == uid:
                    state = next((l for l in status.splitlines() if l.startswith("State:")), "")
                    if "Z" not in state.split()[1:2]:
                        found.append(int(entry))
                break
    return found
