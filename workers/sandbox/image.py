"""A runtime's files held by the worker, and how each sandbox gets its private copy of them.

Each worker process builds a runtime's files once (``Runtime.collect``) and keeps them in sealed
memfds (shmem: resident, never evicted without swap, charged to the worker; no bot ever reads
them). Every sandbox then gets its own copy on a tmpfs of its own (``workers.sandbox.rootfs``
fills one per slot ahead of time with ``write_into``; without the right to mount, bwrap writes the
copy into its own root tmpfs with ``--file``, see ``bwrap_args``). So every file a bot can read or
list, every directory entry it can look up (or fail to), every inode it can stat and every page
behind them belongs to that one sandbox and dies with it. See ``docs/sandbox.md``.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import threading
from pathlib import Path, PurePosixPath

from workers.sandbox.runtimes import Runtime, RuntimeFiles

_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


class RuntimeImage:
    """A runtime's files held in sealed memfds, ready to be copied into each sandbox."""

    def __init__(self, files: RuntimeFiles):
        self.entries: list[tuple[str, int, int, int]] = []     # (sandbox path, mode, memfd, size)
        folders: set[str] = set()
        digest = hashlib.sha256()
        try:
            for item in files.files:
                data = item.read()
                digest.update(f"{item.path}\0{item.mode:o}\0{len(data)}\0".encode())
                digest.update(data)
                fd = os.memfd_create(PurePosixPath(item.path).name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
                self.entries.append((item.path, item.mode, fd, len(data)))
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
                folders.update(str(parent) for parent in PurePosixPath(item.path).parents)
        except BaseException:
            self.close()
            raise
        for link, _ in files.symlinks:
            folders.update(str(parent) for parent in PurePosixPath(link).parents)
        folders.discard("/")
        links = dict(files.symlinks)
        # A folder that is a symlink (/lib -> usr/lib) is made by --symlink, never as a folder.
        self.folders = sorted(f for f in folders if f not in links and not any(
            f.startswith(link + "/") for link in links))
        self.symlinks = sorted(files.symlinks)
        for link, target in self.symlinks:
            digest.update(f"{link}\0{target}\0".encode())
        self.size = sum(entry[3] for entry in self.entries)
        self.digest = digest.hexdigest()

    def write_into(self, root: Path) -> None:
        """Write a copy of every file, folder and symlink under ``root`` (a fresh tmpfs)."""
        for folder in self.folders:
            (root / folder.lstrip("/")).mkdir(mode=0o755)
        for path, mode, memfd, size in self.entries:
            fd = os.open(root / path.lstrip("/"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
            try:
                offset = 0
                while offset < size:
                    sent = os.sendfile(fd, memfd, offset, size - offset)
                    if sent == 0:
                        raise OSError(f"short copy of {path}")
                    offset += sent
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
        for link, target in self.symlinks:
            os.symlink(target, root / link.lstrip("/"))

    def bwrap_args(self) -> tuple[list[str], list[int]]:
        """The bwrap options that write a private copy of every file, and the descriptors they read
        (fresh ones, each with its own offset: the caller passes them to bwrap and closes them)."""
        argv: list[str] = []
        for folder in self.folders:
            argv += ["--perms", "0755", "--dir", folder]
        fds: list[int] = []
        try:
            for path, mode, memfd, _ in self.entries:
                fd = os.open(f"/proc/self/fd/{memfd}", os.O_RDONLY | os.O_CLOEXEC)
                fds.append(fd)
                argv += ["--perms", f"{mode:04o}", "--file", str(fd), path]
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        for link, target in self.symlinks:
            argv += ["--symlink", target, link]
        return argv, fds

    def close(self) -> None:
        for _, _, fd, _ in self.entries:
            try:
                os.close(fd)
            except OSError:
                pass
        self.entries = []


_LOCK = threading.Lock()


@functools.cache
def _image(runtime: Runtime) -> RuntimeImage:
    return RuntimeImage(runtime.collect())


def image_for(runtime: Runtime) -> RuntimeImage:
    """The image of ``runtime`` in this process (built on first use: a few seconds for Python)."""
    with _LOCK:
        return _image(runtime)
