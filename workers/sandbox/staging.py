"""Staging a bot's files (a .py, a .zip or a folder) as a world-readable copy the sandbox mounts."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
import zlib
from pathlib import Path

from workers.sandbox.errors import BotFilesError

# Bot archives: refuse what would be absurd to stage for a single match.
MAX_BOT_BYTES = 64 * 1024 * 1024
MAX_BOT_FILES = 2000
MAX_NAME_BYTES = 255      # one path component (ext4, tmpfs, ...)
MAX_PATH_BYTES = 1024     # a member's whole path: far below PATH_MAX wherever the copy is staged


def _clear_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(mode=0o755, parents=True)


def stage_bot(source: str | os.PathLike, target: Path, label: str | None = None, entry: str = "main.py") -> None:
    """Copy a bot (one source file, .zip with ``entry`` at its root, or folder with it) to ``target``.

    The copy is world-readable and holds regular files and directories only, so the
    unprivileged sandbox uid can read it whatever the permissions of the upload were; files that
    were executable (a built binary) stay executable, nothing else is. A single file is staged
    under the entry file's name (``bot.cpp`` -> ``main.cpp``) when its suffix is the entry's.
    BotFilesError says why the bot's files cannot be staged; for an archive it names the archive
    as ``label`` (default: its file name), never a folder of the machine that staged it.
    """
    source = Path(source)
    _clear_dir(target)
    executable: set[Path] = set()
    if source.is_dir():
        if not (source / entry).is_file():
            raise BotFilesError(f"bot folder {source} has no {entry}")
        total = count = 0
        for root, dirs, files in os.walk(source, followlinks=False):
            rel = Path(root).relative_to(source)
            dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink() and d != "__pycache__"]
            for d in dirs:
                (target / rel / d).mkdir(mode=0o755)
            for name in files:
                src = Path(root) / name
                if src.is_symlink() or not src.is_file():
                    continue
                count += 1
                total += src.stat().st_size
                if count > MAX_BOT_FILES or total > MAX_BOT_BYTES:
                    raise BotFilesError(f"bot folder {source} is too big (max {MAX_BOT_FILES} files, "
                                       f"{MAX_BOT_BYTES // 2**20} MiB)")
                try:
                    shutil.copyfile(src, target / rel / name)
                    if src.stat().st_mode & stat.S_IXUSR:
                        executable.add(target / rel / name)
                except OSError as exc:
                    raise BotFilesError(f"bot folder {source}: cannot copy {src}: {exc.strerror or exc}") from None
    elif source.suffix == ".zip" and source.is_file():
        executable = _unpack_zip(source, target, label or f"bot archive {source.name}", entry)
    elif source.is_file() and source.suffix == Path(entry).suffix:
        shutil.copyfile(source, target / entry)
    else:
        raise BotFilesError(f"bot {source} is not a {Path(entry).suffix} file, a .zip or a folder with {entry}")
    for root, _dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            path = Path(root) / name
            os.chmod(path, 0o755 if path in executable else 0o644)


def archive_member_paths(names: list[str], label: str) -> dict[str, tuple[str, ...]]:
    """Each member name's path inside the staged copy (``a//./b`` is ``a/b``); BotFilesError when
    a name is unsafe or too long, when two names are the same file once normalised (one would
    silently replace the other: the code checked would not be the code run), or when a name is
    both a file and a folder."""
    paths: dict[str, tuple[str, ...]] = {}
    owners: dict[tuple[str, ...], str] = {}
    for name in names:
        parts = tuple(part for part in name.rstrip("/").split("/") if part not in ("", "."))
        if name.startswith("/") or ".." in parts or not parts:
            raise BotFilesError(f"{label} has an unsafe path {name!r}", "unsafe_path")
        if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in parts):
            raise BotFilesError(f"{label}: cannot unpack {name!r}: a name in it is longer than "
                                f"{MAX_NAME_BYTES} bytes", "name_too_long")
        if len("/".join(parts).encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
            raise BotFilesError(f"{label}: cannot unpack {name!r}: its path is longer than {MAX_PATH_BYTES} bytes",
                                "name_too_long")
        is_dir = name.endswith("/")
        key = parts + (("/",) if is_dir else ())
        if key in owners:
            raise BotFilesError(f"{label}: {owners[key]!r} and {name!r} are the same file once the "
                                f"path is normalised ({'/'.join(parts)})", "duplicate_entry")
        owners[key] = name
        paths[name] = parts
    files = {parts: name for parts, name in owners.items() if parts[-1:] != ("/",)}
    folders = {parts[:i] for parts in owners for i in range(1, len(parts))} | {
        parts[:-1] for parts in owners if parts[-1:] == ("/",)}
    for parts, name in files.items():
        if parts in folders:
            raise BotFilesError(f"{label}: cannot unpack {name!r}: it is a file and also a folder of other entries",
                                "name_clash")
    return paths


def _unpack_zip(source: Path, target: Path, label: str, entry: str = "main.py") -> set[Path]:
    """Unpack the archive; returns the paths of the members stored as executable."""
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:   # ValueError: undecodable names
        raise BotFilesError(f"{label} is not a valid zip: {exc}", "not_a_zip") from None
    with archive:
        infos = archive.infolist()
        paths = archive_member_paths([m.filename for m in infos], label)
        members = [m for m in infos if not m.is_dir()]
        if (entry,) not in {paths[m.filename] for m in members}:
            raise BotFilesError(f"{label} has no {entry} at its root", "no_main")
        if len(members) > MAX_BOT_FILES or sum(m.file_size for m in members) > MAX_BOT_BYTES:
            raise BotFilesError(f"{label} is too big", "too_large")
        executable: set[Path] = set()
        for member in members:
            if stat.S_ISLNK(member.external_attr >> 16):
                continue
            dest = target.joinpath(*paths[member.filename])
            if (member.external_attr >> 16) & stat.S_IXUSR:
                executable.add(dest)
            try:
                dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                with archive.open(member) as src, open(dest, "wb") as out:
                    shutil.copyfileobj(src, out)
            except (OSError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError, ValueError,
                    NotImplementedError) as exc:
                # A name the file system refuses, a corrupt, encrypted or oddly compressed
                # member: the archive's fault, not the match's. The reason without the path of
                # the copy (a folder of this machine, of no use to the bot's author).
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise BotFilesError(f"{label}: cannot unpack {member.filename!r}: {reason}") from None
    return executable
