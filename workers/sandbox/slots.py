"""Slots: an exclusive lock file, a uid and cgroups of its own, a staging directory."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from workers.sandbox.cgroups import SlotCgroups
from workers.sandbox.errors import SandboxError
from workers.sandbox.host import INSTALL_HINT, UNSAFE_ENV, bwrap_path, runtime_dir, unsafe_mode
from workers.sandbox.rootfs import unmount

UID_BASE_ENV = "ARENA_SANDBOX_UID_BASE"
DEFAULT_UID_BASE = 61000
SLOT_COUNT = 64


class Slot:
    """An exclusive sandbox slot: a held lock file, a uid and cgroups, a staging directory."""

    def __init__(self, index: int, lock_fd: int, base: Path):
        self.index = index
        self._lock_fd = lock_fd
        # A uid of its own only when we can switch to it (root); None otherwise.
        self.uid = int(os.environ.get(UID_BASE_ENV, DEFAULT_UID_BASE)) + index if os.geteuid() == 0 else None
        self.directory = base / f"slot-{index}"
        self.cgroups = SlotCgroups(index, siblings=SLOT_COUNT)

    def release(self) -> None:
        """Give the slot back (its processes must be gone already)."""
        self.cgroups.close()
        self.release_lock()

    def release_lock(self) -> None:
        """Unlock the slot (its cgroups' control files closed already)."""
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


def acquire_slot(timeout: float = 30.0, index: int | None = None,
                 prefer: Callable[[Path], bool] | None = None) -> Slot:
    """Lock a free slot (slot ``index`` when given); several matches on one machine never share one.

    ``prefer`` (given a slot's folder) picks the slots to try first: those whose root holds the
    sandbox's runtime already, so a machine running bots of several languages fills a root only
    when no free slot has one."""
    base = runtime_dir()
    (base / "locks").mkdir(mode=0o700, exist_ok=True)
    deadline = time.monotonic() + timeout
    if index is not None and not 0 <= index < SLOT_COUNT:
        raise SandboxError(f"no sandbox slot {index} (slots are 0 to {SLOT_COUNT - 1})")
    candidates: Sequence[int] = range(SLOT_COUNT) if index is None else (index,)
    if prefer is not None and index is None:
        used = {int(name[5:]) for name in os.listdir(base) if name.startswith("slot-") and name[5:].isdigit()}
        first = [i for i in sorted(used) if i < SLOT_COUNT and prefer(base / f"slot-{i}")]
        candidates = first + [i for i in range(SLOT_COUNT) if i not in first]
    while True:
        for index in candidates:
            fd = os.open(base / "locks" / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return Slot(index, fd, base)
        if time.monotonic() > deadline:
            raise SandboxError(f"no free sandbox slot among {SLOT_COUNT} after {timeout:.0f} s"
                               if len(candidates) > 1 else f"sandbox slot {index} still busy after {timeout:.0f} s")
        time.sleep(0.05)


def clear_idle_slots() -> int:
    """Remove the staged bots that killed matches left in slots nobody holds now; returns how many.

    A match removes its bot's staged copy when it ends (``slot-N/bot``, or the sandbox's own
    tmpfs ``slot-N/botfs``); a worker killed mid-match leaves it until the slot is used again. A
    slot whose lock can be taken has no live match. The slot's root (the runtime) stays.
    """
    base = runtime_dir()
    locks = base / "locks"
    if not locks.is_dir():
        return 0
    cleared = 0
    for index in range(SLOT_COUNT):
        staged, botfs = base / f"slot-{index}" / "bot", base / f"slot-{index}" / "botfs"
        if not (staged.exists() or os.path.ismount(botfs)):
            continue
        fd = os.open(locks / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a running match holds it
        try:
            shutil.rmtree(staged, ignore_errors=True)
            unmount(botfs)
            cleared += not (staged.exists() or os.path.ismount(botfs))
        finally:
            os.close(fd)
    return cleared


def check_available() -> str:
    """A one-line description of the sandbox on this machine; SandboxError when it cannot run."""
    if unsafe_mode():
        return f"UNSAFE: {UNSAFE_ENV} is set, bots run without a sandbox"
    path = bwrap_path()
    if path is None:
        raise SandboxError(INSTALL_HINT)
    slot = acquire_slot()
    try:
        uids = f"slot uids from {slot.uid - slot.index}" if slot.uid is not None else "no uid switch (not root)"
        return f"bubblewrap {path}, {uids}, {slot.cgroups.describe()}"
    finally:
        slot.release()
