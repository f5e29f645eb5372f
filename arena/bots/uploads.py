"""Upload rules for bots: one source file, or a ``.zip`` with one entry file at its root.

The entry file gives the language (DESIGN.md, "Bot protocol"): ``main.py``, ``main.js``,
``main.cpp``, ``main.rs``, ``main.go`` or ``Main.java``; a single file by its suffix. Python is
parsed here; the compiled languages are checked by their build (``workers.build``, on a worker).

Every rule raises a ``ValidationError`` with a specific message and code; nothing is stored
before all rules passed. The limits live here so that pages, the API and docs quote them.
"""

from __future__ import annotations

import ast
import io
import posixpath
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError

from workers.sandbox import BotFilesError, stage_bot
from workers.sandbox.staging import archive_member_paths
from workers.toolchains import ENTRY_FILES, LANGUAGE_OF_ENTRY, LANGUAGE_OF_SUFFIX, TITLES

MIB = 1024 * 1024
MAX_PY_BYTES = 1 * MIB
MAX_ZIP_BYTES = 5 * MIB
MAX_UNPACKED_BYTES = 20 * MIB
MAX_ZIP_ENTRIES = 200


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that passed every rule."""

    filename: str
    kind: str  # "py", "source" (another language's single file) or "zip"
    data: bytes
    language: str = "python"


def upload_read(upload) -> tuple[str, bytes]:
    """Name and bytes of an uploaded file, reading at most one byte past the largest limit."""
    name = getattr(upload, "name", "") or ""
    if hasattr(upload, "seek"):
        try:
            upload.seek(0)
        except (OSError, ValueError):
            pass
    data = upload.read(MAX_ZIP_BYTES + 1)
    if isinstance(data, str):
        data = data.encode()
    return posixpath.basename(name.replace("\\", "/")), data


def upload_check(*, filename: str, data: bytes) -> CheckedUpload:
    """Apply every upload rule; raise ValidationError (specific message and code) on the first broken one."""
    suffix = Path(filename.lower()).suffix
    if suffix == ".zip":
        kind, language = "zip", None
    elif suffix in LANGUAGE_OF_SUFFIX:
        language = LANGUAGE_OF_SUFFIX[suffix]
        kind = "py" if language == "python" else "source"
    else:
        raise ValidationError(
            f"{filename or 'the upload'}: upload a .py file or a .zip with one entry file at its root "
            f"({', '.join(ENTRY_FILES.values())}), or one source file of another language (.js, .cpp, .rs, .go, "
            ".java).",
            code="bad_extension")
    if not data:
        raise ValidationError(f"{filename} is empty.", code="empty")
    if kind != "zip":
        if len(data) > MAX_PY_BYTES:
            raise ValidationError(
                f"{filename} is larger than the 1 MiB limit for a single {suffix} file.", code="too_large")
        if language == "python":
            _check_python_source(data, filename)
        else:
            _check_text(data, filename)
    else:
        language = _check_zip(data, filename)
    return CheckedUpload(filename=filename, kind=kind, data=data, language=language)


def _check_text(data: bytes, name: str) -> None:
    """A source file of a compiled language or JavaScript: UTF-8 text (its compiler judges the rest)."""
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{name} is not UTF-8 text (byte {exc.start}).", code="not_utf8") from None
    if b"\0" in data:
        raise ValidationError(f"{name} holds a NUL byte: not a source file.", code="not_utf8")


def _check_python_source(data: bytes, name: str) -> None:
    try:
        source = data.decode("utf-8-sig")  # a BOM is fine: Python itself accepts it
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{name} is not UTF-8 text (byte {exc.start}).", code="not_utf8") from None
    try:
        ast.parse(source, filename=name)
    except SyntaxError as exc:
        raise ValidationError(
            f"{name} line {exc.lineno}: syntax error: {exc.msg}.", code="syntax_error") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ValidationError(f"{name} cannot be parsed: {exc}.", code="syntax_error") from None


def _check_zip(data: bytes, name: str) -> str:
    """Every rule of a .zip; returns the language its entry file gives."""
    if len(data) > MAX_ZIP_BYTES:
        raise ValidationError(f"{name} is larger than the 5 MiB limit for a .zip.", code="too_large")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
        raise ValidationError(f"{name} is not a valid .zip archive.", code="not_a_zip") from None
    if len(infos) > MAX_ZIP_ENTRIES:
        raise ValidationError(
            f"{name} has {len(infos)} entries; the limit is {MAX_ZIP_ENTRIES}.", code="too_many_entries")
    declared = 0
    for info in infos:
        entry = info.filename
        if entry.startswith(("/", "\\")) or (len(entry) > 1 and entry[1] == ":"):
            raise ValidationError(f"{name}: entry {entry!r} has an absolute path.", code="absolute_path")
        parts = entry.replace("\\", "/").split("/")
        if ".." in parts:
            raise ValidationError(f"{name}: entry {entry!r} points outside the archive ('..').",
                                  code="parent_path")
        mode = info.external_attr >> 16
        file_type = stat.S_IFMT(mode)
        if info.create_system == 3 and file_type:  # Unix file type present (0: a plain file)
            if stat.S_ISLNK(mode):
                raise ValidationError(f"{name}: entry {entry!r} is a symbolic link.", code="symlink")
            if file_type not in (stat.S_IFREG, stat.S_IFDIR):
                raise ValidationError(f"{name}: entry {entry!r} is a special file.", code="special_file")
        if info.flag_bits & 0x1:
            raise ValidationError(f"{name}: entry {entry!r} is encrypted.", code="encrypted")
        declared += info.file_size
    try:
        # The names as the sandbox stages them: "main.py" and "./main.py" are one file, and the
        # code checked here must be the code that runs.
        archive_member_paths([info.filename for info in infos], name)
    except BotFilesError as exc:
        raise ValidationError(f"{exc}.", code=exc.code) from None
    if declared > MAX_UNPACKED_BYTES:
        raise ValidationError(
            f"{name} unpacks to {declared} bytes; the limit is 20 MiB.", code="unpacked_too_large")
    files = [i.filename for i in infos if not i.is_dir()]
    entries = sorted(f for f in files if f in LANGUAGE_OF_ENTRY)
    if not entries:
        nested = sorted((f for f in files if f.rsplit("/", 1)[-1] in LANGUAGE_OF_ENTRY),
                        key=lambda f: (f.count("/"), f))
        hint = (f" It has {nested[0]}: zip the files inside that folder, not the folder itself."
                if nested else "")
        raise ValidationError(f"{name} has no main.py at its root (nor main.js, main.cpp, main.rs, main.go or "
                              f"Main.java: one entry file gives the bot's language).{hint}", code="no_main")
    if len(entries) > 1:
        raise ValidationError(f"{name} has {len(entries)} entry files at its root ({', '.join(entries)}): "
                              "keep one, it gives the bot's language.", code="two_entries")
    entry = entries[0]
    language = LANGUAGE_OF_ENTRY[entry]
    # Decompress for real (headers can lie about sizes) with a running cap; checks every CRC too.
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        try:
            with archive.open(info) as stream:
                while chunk := stream.read(64 * 1024):
                    total += len(chunk)
                    if total > MAX_UNPACKED_BYTES:
                        raise ValidationError(
                            f"{name} unpacks to more than the 20 MiB limit.", code="unpacked_too_large")
        except ValidationError:
            raise
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, ValueError) as exc:
            raise ValidationError(f"{name}: entry {info.filename!r} is corrupt ({exc}).",
                                  code="corrupt_entry") from None
    if language == "python":
        _check_python_source(archive.read("main.py"), "main.py")
    else:
        _check_text(archive.read(entry), f"{entry} ({TITLES[language]})")
    _check_stages(data, name, entry)
    return language


def _check_stages(data: bytes, name: str, entry: str = "main.py") -> None:
    """Unpack the archive exactly as a worker will for the sandbox: what fails there fails here,
    with the reason, instead of later in the smoke test."""
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as folder:
        archive = Path(folder) / "upload.zip"
        archive.write_bytes(data)
        try:
            stage_bot(archive, Path(folder) / "staged", label=name, entry=entry)
        except BotFilesError as exc:
            raise ValidationError(f"{exc}.", code=exc.code) from None
