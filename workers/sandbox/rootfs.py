"""Each sandbox's root: a fresh tmpfs of its own holding a private copy of its runtime and its bot.

A new tmpfs is a new superblock: its dentries (positive and negative), its inodes and its pages
belong to it alone, and all of them are freed when it is unmounted. So a bot can leave no trace
in a kernel cache that another sandbox (the other seats of its match, a later match in its slot
or in another slot) could time, and can time none another one left. Nothing else of the host's
file systems is mounted in a sandbox but /proc of its own PID namespace and the device nodes of
bwrap's ``--dev`` (see ``docs/sandbox.md``).

Filling a root copies the runtime (~20 MB for Python) and costs tens of milliseconds, so each slot
keeps one *spare*: filled when the slot's previous sandbox ended, taken (marked used) by the next
sandbox's start, then unmounted when that sandbox ends and replaced by a fresh one. The spare is
mounted at ``slot-N/root`` under the runtime directory, and ``slot-N/root.ready`` names the image
(and the layout) it holds; a spare is used once only, because its marker is removed before it is handed out (a
runner killed in between leaves no marker, and the next holder of the slot rebuilds). Only the
holder of the slot's lock touches either.

Mounting needs root (CAP_SYS_ADMIN in the runner's mount namespace). Without it the sandbox gets
the same private copy from bwrap itself (``--file`` into its own root tmpfs), correct but about
ten times slower to start (see ``docs/deploy.md``).
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

from workers.sandbox.errors import SandboxError
from workers.sandbox.image import RuntimeImage

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
# Where bwrap mounts /proc, /dev and /tmp, and the bot's staged copy goes: the root is bound
# read-only into the sandbox, so every mount point must exist in it already.
MOUNT_POINTS = ("proc", "dev", "tmp", "bot")
# The empty file and folder bound over /proc's machine-wide entries: the root's own, under its
# /tmp (hidden once the sandbox's /tmp tmpfs is mounted over it), so no host path shows in
# /proc/self/mountinfo and no host inode is reachable.
MASK_FILE, MASK_FOLDER = "tmp/.masks/empty-file", "tmp/.masks/empty-folder"
LAYOUT = 2   # raised whenever what _fill makes changes: a spare of another layout is never used

_libc = ctypes.CDLL(None, use_errno=True)


def can_mount() -> bool:
    """True when this process may mount a tmpfs (root; the runner's own namespace)."""
    return os.geteuid() == 0


def _mount_tmpfs(target: Path, size: int) -> None:
    options = f"mode=0755,size={size},nr_inodes=65536".encode()
    if _libc.mount(b"tmpfs", str(target).encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        code = ctypes.get_errno()
        raise SandboxError(f"cannot mount a tmpfs at {target}: {os.strerror(code)}")


def unmount(target: Path) -> None:
    """Detach whatever is mounted at ``target`` (the tmpfs is freed once no sandbox holds it)."""
    while os.path.ismount(target):
        if _libc.umount2(str(target).encode(), MNT_DETACH) != 0:
            code = ctypes.get_errno()
            if code in (errno.EINVAL, errno.ENOENT):
                return
            raise SandboxError(f"cannot unmount {target}: {os.strerror(code)}")


class SlotRoot:
    """The private root of the sandbox in one slot, and its spare."""

    def __init__(self, slot_directory: Path, image: RuntimeImage, bot_bytes: int):
        self.path = slot_directory / "root"
        self.marker = slot_directory / "root.ready"
        self.image = image
        self.size = image.size + bot_bytes + 4 * 1024 * 1024
        self.stamp = f"{image.digest} layout {LAYOUT}"

    def take(self) -> Path:
        """A fresh root for a new sandbox (the spare when it is there and holds this image)."""
        try:
            ready = self.marker.read_text().strip() == self.stamp
        except OSError:
            ready = False
        self.marker.unlink(missing_ok=True)    # used from now on, whatever happens next
        if not (ready and os.path.ismount(self.path)):
            self._fill()
        return self.path

    def replace(self) -> None:
        """Drop the used root, and fill the spare the slot's next sandbox will take."""
        self.marker.unlink(missing_ok=True)
        self._fill()
        self.marker.write_text(self.stamp + "\n")

    def drop(self) -> None:
        """Unmount the root, leaving no spare."""
        self.marker.unlink(missing_ok=True)
        unmount(self.path)

    def _fill(self) -> None:
        unmount(self.path)
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        _mount_tmpfs(self.path, self.size)
        try:
            for name in MOUNT_POINTS:
                (self.path / name).mkdir(mode=0o755)
            (self.path / MASK_FOLDER).mkdir(mode=0o555, parents=True)
            (self.path / MASK_FILE).touch(mode=0o444)
            self.image.write_into(self.path)
        except BaseException:
            unmount(self.path)
            raise
