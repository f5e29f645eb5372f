"""Each slot's root: a tmpfs of the slot alone holding its copy of the runtime, read-only to bots;
and each sandbox's /bot: a fresh tmpfs of its own.

Two sandboxes alive together are always in two slots, so they share no file, no dentry, no inode
and no page of a root (nor of a /bot): not the seats of one match, not two matches at once. The
sandboxes of one slot come one after another and reuse the slot's root, which is sound for a
tmpfs that no bot can write (``docs/sandbox.md``, measured by ``tests/workers/test_cache_channels``):

* its files' pages are the storage itself: all resident from the fill on, none can be evicted
  (without swap nothing can write a tmpfs page out; with swap on, the worker locks every page of
  the roots it uses in memory, ``mlock``, or refuses to run), so reading a page tells nothing of
  who read it before;
* its positive dentries and its inodes are pinned by the tmpfs for the file's life: all present
  from the fill on, whoever looked them up;
* it keeps no negative dentry: a lookup of a missing name leaves nothing (``always_delete_dentry``);
* the bind is read-only: no bot changes a file, a mode, a time stamp (no atime on a read-only
  mount) or a directory;
* whatever a process holds on a file (a mapping, a lock, an inotify watch) ends with the process,
  and every process of the slot is killed before the slot is given back.

Each sandbox's own files (``/bot``) are on a fresh tmpfs mounted for it (``slot-N/botfs``) and
unmounted when it ends, so nothing of one bot's files survives into the next sandbox. A root is
filled on the slot's first use by a runtime (its copy of the runtime: ~20 MB for Python, 30-60 ms).
``slot-N/root.ready`` names the image and layout the root holds while no sandbox uses it: removed
when a sandbox takes the root, written back when that sandbox ended with every process of it dead.
A runner killed mid-fill or mid-sandbox leaves no marker, and the slot's next holder fills a fresh
root. Only the holder of the slot's lock touches either.

Mounting needs root (CAP_SYS_ADMIN in the runner's mount namespace). Without it the sandbox gets
a private copy from bwrap itself (``--file`` into its own root tmpfs), correct but about ten times
slower to start (see ``docs/deploy.md``).
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
from pathlib import Path

from workers.sandbox.errors import SandboxError
from workers.sandbox.image import RuntimeImage

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
# Where bwrap mounts /proc, /dev and /tmp, and the bot's tmpfs goes: the root is bound read-only
# into the sandbox, so every mount point must exist in it already.
MOUNT_POINTS = ("proc", "dev", "tmp", "bot")
# The empty file and folder bound over /proc's machine-wide entries: the root's own, under its
# /tmp (hidden once the sandbox's /tmp tmpfs is mounted over it), so no host path shows in
# /proc/self/mountinfo and no host inode is reachable.
MASK_FILE, MASK_FOLDER = "tmp/.masks/empty-file", "tmp/.masks/empty-folder"
LAYOUT = 3   # raised whenever what _fill makes changes: a root of another layout is never used
BOT_FILES_LIMIT = 65536  # inodes of a /bot tmpfs (staging allows 2,000 files, folders without a count)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
# This process's locks on the roots it uses while swap is on: root path -> (stamp, mappings).
_LOCKED: dict[Path, tuple[str, list[tuple[int, int]]]] = {}


def can_mount() -> bool:
    """True when this process may mount a tmpfs (root; the runner's own namespace)."""
    return os.geteuid() == 0


def swap_active() -> bool:
    """True when the machine has swap in use (/proc/swaps lists a device or file)."""
    try:
        with open("/proc/swaps") as swaps:
            return len(swaps.read().strip().splitlines()) > 1
    except OSError:
        return False


SHMEM_HUGE = Path("/sys/kernel/mm/transparent_hugepage/shmem_enabled")


def mount_tmpfs(target: Path, size: int, inodes: int = 65536) -> None:
    """A tmpfs of small pages only (``huge=never``): no bot can make or split a huge page of it.
    SandboxError when the machine forces huge pages on every tmpfs (``shmem_enabled`` = force)."""
    try:
        forced = "[force]" in SHMEM_HUGE.read_text()
    except OSError:
        forced = False
    if forced:
        raise SandboxError(f"{SHMEM_HUGE} is 'force': the sandbox's tmpfs roots must keep small pages "
                           "(set it to never, within_size, advise or deny; see docs/deploy.md)")
    options = f"mode=0755,size={size},nr_inodes={inodes},huge=never".encode()
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


def _unlock(path: Path) -> None:
    _, maps = _LOCKED.pop(path, ("", []))
    for address, length in maps:
        _libc.munmap(ctypes.c_void_p(address), ctypes.c_size_t(length))


def _lock_resident(path: Path, stamp: str) -> None:
    """Map every file of the root and lock its pages in memory (while swap is on, so none can be
    written out and read back at another speed); SandboxError when the kernel refuses."""
    _unlock(path)
    maps: list[tuple[int, int]] = []
    _LOCKED[path] = ("", maps)      # unlocked again by _unlock should anything below fail
    for folder, _, names in os.walk(path):
        for name in names:
            file = os.path.join(folder, name)
            if os.path.islink(file) or os.path.getsize(file) == 0:
                continue
            fd = os.open(file, os.O_RDONLY | os.O_CLOEXEC)
            try:
                length = os.fstat(fd).st_size
                address = _libc.mmap(None, ctypes.c_size_t(length), mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            finally:
                os.close(fd)
            if address in (None, ctypes.c_void_p(-1).value):
                raise SandboxError(f"cannot map {file}: {os.strerror(ctypes.get_errno())}")
            maps.append((address, length))
            if _libc.mlock(ctypes.c_void_p(address), ctypes.c_size_t(length)) != 0:
                raise SandboxError(
                    f"swap is on and the sandbox runtime's pages cannot be locked in memory "
                    f"({os.strerror(ctypes.get_errno())}): turn swap off or let the worker lock memory "
                    f"(RLIMIT_MEMLOCK), see docs/deploy.md")
    _LOCKED[path] = (stamp, maps)


def stamp_of(image: RuntimeImage) -> str:
    """What a slot's marker says when its root holds ``image`` in this layout."""
    return f"{image.digest} layout {LAYOUT}"


def holds(slot_directory: Path, stamp: str) -> bool:
    """True when the slot's root is free to reuse and holds the image of ``stamp`` (its marker)."""
    try:
        return (slot_directory / "root.ready").read_text().strip() == stamp
    except OSError:
        return False


class SlotRoot:
    """The root of the sandboxes of one slot (reused while it holds their runtime), and the fresh
    /bot tmpfs of the sandbox in it now."""

    def __init__(self, slot_directory: Path, image: RuntimeImage, bot_bytes: int):
        self.path = slot_directory / "root"
        self.marker = slot_directory / "root.ready"
        self.bot_mount = slot_directory / "botfs"
        self.image = image
        self.size = image.size + 4 * 1024 * 1024
        self.bot_size = bot_bytes + 4 * 1024 * 1024
        self.stamp = stamp_of(image)

    def ready(self) -> bool:
        """True when the slot's root holds this image, complete (and locked by this process while
        swap is on)."""
        if not (holds(self.marker.parent, self.stamp) and os.path.ismount(self.path)):
            return False
        return not swap_active() or _LOCKED.get(self.path, ("",))[0] == self.stamp

    def take(self) -> tuple[Path, Path]:
        """The slot's root (filled first when it does not hold this image) and a fresh, empty
        folder on a new tmpfs for the bot's files: ``(root, bot folder)``. The marker is removed
        while the root is in use: a runner killed before ``release`` leaves none, and the slot's
        next holder fills a fresh root."""
        if not self.ready():
            self._fill()
        self.marker.unlink(missing_ok=True)
        unmount(self.bot_mount)
        self.bot_mount.mkdir(mode=0o700, exist_ok=True)
        mount_tmpfs(self.bot_mount, self.bot_size, BOT_FILES_LIMIT)
        return self.path, self.bot_mount / "bot"

    def release(self, clean: bool = True) -> None:
        """The sandbox ended: unmount its /bot tmpfs (its files, dentries, inodes and pages go) and
        leave the root to the slot's next sandbox; when some process of the sandbox may have
        survived (``clean`` False), drop the root too, so the next sandbox shares nothing with it."""
        unmount(self.bot_mount)
        if not clean:
            self.drop()
            return
        self.marker.write_text(self.stamp + "\n")

    def drop(self) -> None:
        """Unmount the bot's tmpfs and the root, leaving nothing in the slot."""
        self.marker.unlink(missing_ok=True)
        unmount(self.bot_mount)
        _unlock(self.path)
        unmount(self.path)

    def _fill(self) -> None:
        self.marker.unlink(missing_ok=True)
        _unlock(self.path)
        unmount(self.path)
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        mount_tmpfs(self.path, self.size)
        try:
            for name in MOUNT_POINTS:
                (self.path / name).mkdir(mode=0o755)
            (self.path / MASK_FOLDER).mkdir(mode=0o555, parents=True)
            (self.path / MASK_FILE).touch(mode=0o444)
            self.image.write_into(self.path)
            if swap_active():
                _lock_resident(self.path, self.stamp)
        except BaseException:
            _unlock(self.path)
            unmount(self.path)
            raise
