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


def _clear_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(mode=0o755, parents=True)


def stage_bot(source: str | os.PathLike, target: Path) -> None:
    """Copy a bot (.py file, .zip with main.py at its root, or folder with main.py) to ``target``.

    The copy is world-readable and holds regular files and directories only, so the
    unprivileged sandbox uid can read it whatever the permissions of the upload were.
    """
    source = Path(source)
    _clear_dir(target)
    if source.is_dir():
        if not (source / "main.py").is_file():
            raise BotFilesError(f"bot folder {source} has no main.py")
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
                except OSError as exc:
                    raise BotFilesError(f"bot folder {source}: cannot copy {src}: {exc.strerror or exc}") from None
    elif source.suffix == ".zip" and source.is_file():
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError) as exc:
            raise BotFilesError(f"bot archive {source} is not a valid zip: {exc}") from None
        with archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            if "main.py" not in {m.filename for m in members}:
                raise BotFilesError(f"bot archive {source} has no main.py at its root")
            if len(members) > MAX_BOT_FILES or sum(m.file_size for m in members) > MAX_BOT_BYTES:
                raise BotFilesError(f"bot archive {source} is too big")
            for member in members:
                parts = Path(member.filename).parts
                if member.filename.startswith("/") or ".." in parts or not parts:
                    raise BotFilesError(f"bot archive {source} has an unsafe path {member.filename!r}")
                if stat.S_ISLNK(member.external_attr >> 16):
                    continue
                dest = target.joinpath(*parts)
                try:
                    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                    with archive.open(member) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
                except (OSError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError,
                        NotImplementedError) as exc:
                    # A name clash (file "a" and "a/b"), a name too long, a corrupt, encrypted
                    # or oddly compressed member: the archive's fault, not the match's.
                    raise BotFilesError(f"bot archive {source}: cannot unpack {member.filename!r}: "
                                        f"{exc}") from None
    elif source.is_file() and source.suffix == ".py":
        shutil.copyfile(source, target / "main.py")
    else:
        raise BotFilesError(f"bot {source} is not a .py file, a .zip or a folder with main.py")
    for root, dirs, files in os.walk(target):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(Path(root) / name, 0o644)
