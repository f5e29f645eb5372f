"""A runtime's files held by the worker, and how each slot's root gets its copy of them.

Each worker process builds a runtime's files once (``Runtime.collect``) and keeps them in one
sealed memfd (shmem: resident, never evicted without swap, charged to the worker; no bot ever reads
them). Each slot then gets its own copy on a tmpfs of its own (``workers.sandbox.rootfs`` fills
it with ``write_into`` on the slot's first use and reuses it, read-only, for the slot's later
sandboxes; without the right to mount, bwrap writes a copy into each sandbox's own root tmpfs with
``--file``, see ``bwrap_args``). So no file, directory entry, inode or page a bot can reach is
shared with a sandbox alive at the same time, and none of them moves with what a bot does. See
``docs/sandbox.md``.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import marshal
import os
import sys
import threading
from pathlib import Path, PurePosixPath

from workers.sandbox.host import runtime_dir
from workers.sandbox.runtimes import Runtime, RuntimeFile, RuntimeFiles

_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


class RuntimeImage:
    """A runtime's files held in one sealed memfd, ready to be copied into each sandbox."""

    def __init__(self, files: RuntimeFiles):
        self.entries: list[tuple[str, int, int, int]] = []     # (sandbox path, mode, offset, size)
        folders: set[str] = set()
        digest = hashlib.sha256()
        self.fd = os.memfd_create("dive-arena-runtime", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            offset = 0
            for item in files.files:
                data = item.read()
                digest.update(f"{item.path}\0{item.mode:o}\0{len(data)}\0".encode())
                digest.update(data)
                self.entries.append((item.path, item.mode, offset, len(data)))
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
                offset += len(data)
                folders.update(str(parent) for parent in PurePosixPath(item.path).parents)
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, _SEALS)
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

    def _copy(self, out: int, offset: int, size: int, path: str) -> None:
        end = offset + size
        while offset < end:
            sent = os.sendfile(out, self.fd, offset, end - offset)
            if sent == 0:
                raise OSError(f"short copy of {path}")
            offset += sent

    def write_into(self, root: Path) -> None:
        """Write a copy of every file, folder and symlink under ``root`` (a new tmpfs)."""
        for folder in self.folders:
            (root / folder.lstrip("/")).mkdir(mode=0o755)
        for path, mode, offset, size in self.entries:
            fd = os.open(root / path.lstrip("/"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
            try:
                self._copy(fd, offset, size, path)
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
        for link, target in self.symlinks:
            os.symlink(target, root / link.lstrip("/"))

    def bwrap_args(self) -> tuple[list[str], list[int]]:
        """The bwrap options that write a private copy of every file into bwrap's own root tmpfs
        (without the right to mount), and the descriptors they read: one memfd per file made for
        this sandbox (the caller passes them to bwrap and closes them)."""
        argv: list[str] = []
        for folder in self.folders:
            argv += ["--perms", "0755", "--dir", folder]
        fds: list[int] = []
        try:
            for path, mode, offset, size in self.entries:
                fd = os.memfd_create("dive-arena-file", os.MFD_CLOEXEC)
                fds.append(fd)
                self._copy(fd, offset, size, path)
                os.lseek(fd, 0, os.SEEK_SET)
                argv += ["--perms", f"{mode:04o}", "--file", str(fd), path]
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        for link, target in self.symlinks:
            argv += ["--symlink", target, link]
        return argv, fds

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


_LOCK = threading.Lock()


def inputs_key(runtime: Runtime) -> str | None:
    """A digest of the runtime's declared inputs (every file under them: path, size, mtime), with
    the interpreter's version; None when the runtime declares none."""
    inputs = runtime.inputs()
    if not inputs:
        return None
    collect = runtime.collect
    made_by = f"{getattr(collect, '__module__', '')}.{getattr(collect, '__qualname__', type(collect).__name__)}"
    digest = hashlib.sha256(f"{runtime.language} {made_by} {sys.version}\0".encode())
    for top in sorted(inputs):
        for folder, dirs, names in os.walk(top) if os.path.isdir(top) else [(os.path.dirname(top), [], [
                os.path.basename(top)])]:
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(folder, name)
                try:
                    stat = os.lstat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:32]


def cached_files(runtime: Runtime) -> RuntimeFiles:
    """``runtime.collect()``, or the copy of it a previous worker left in the runtime directory
    (``images/LANGUAGE-KEY.img``, private to the runner's user) while its inputs are unchanged."""
    key = inputs_key(runtime)
    if key is None:
        return runtime.collect()
    folder = runtime_dir() / "images"
    path = folder / f"{runtime.language}-{key}.img"
    try:
        files, links = marshal.loads(path.read_bytes())
        return RuntimeFiles(tuple(RuntimeFile(p, data=d, mode=m) for p, d, m in files),
                            tuple(tuple(link) for link in links))
    except (OSError, EOFError, ValueError, TypeError):
        pass
    collected = runtime.collect()
    files = [(item.path, item.read(), item.mode) for item in collected.files]
    folder.mkdir(mode=0o700, exist_ok=True)
    for old in folder.glob(f"{runtime.language}-*.img"):
        old.unlink(missing_ok=True)
    scratch = folder / f".{path.name}.{os.getpid()}"
    scratch.write_bytes(marshal.dumps((files, [list(link) for link in collected.symlinks])))
    os.replace(scratch, path)
    return RuntimeFiles(tuple(RuntimeFile(p, data=d, mode=m) for p, d, m in files), collected.symlinks)


@functools.cache
def _image(runtime: Runtime) -> RuntimeImage:
    return RuntimeImage(cached_files(runtime))


def image_for(runtime: Runtime) -> RuntimeImage:
    """The image of ``runtime`` in this process (on first use: read from the runtime directory's
    cache in ~0.1 s, or built in a few seconds for Python when its inputs changed)."""
    with _LOCK:
        return _image(runtime)
