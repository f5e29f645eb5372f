"""Bad uploads, one per upload rule, with a fragment of the message each must get.

Shared by the API and the page tests (the service-level rules are tested in tests/platform).
"""

from __future__ import annotations

import io
import stat
import zipfile

from tests.factories import FIRST_ACTION_BOT


def make_zip(entries) -> bytes:
    """A zip of ``(name or ZipInfo, data)`` entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def _unix_entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


def bad_uploads() -> list[tuple[str, str, bytes, str]]:
    """``(case id, filename, bytes, message fragment)`` for every upload rule."""
    main = ("main.py", FIRST_ACTION_BOT)
    return [
        ("wrong-extension", "bot.exe", b"MZ", "upload a .py file or a .zip"),
        ("empty-file", "bot.py", b"", "is empty"),
        ("py-too-large", "bot.py", b"#" * (1024 * 1024 + 1), "1 MiB limit"),
        ("syntax-error", "bot.py", b"def broken(:\n", "syntax error"),
        ("not-utf8", "bot.py", b"x = '\xff\xfe'\n", "not UTF-8"),
        ("not-a-zip", "bot.zip", b"PK this is not a zip", "not a valid .zip"),
        ("zip-too-large", "bot.zip", b"PK" + b"\0" * (5 * 1024 * 1024), "5 MiB limit"),
        ("no-main", "bot.zip", make_zip([("bot.py", FIRST_ACTION_BOT)]), "no main.py at its root"),
        ("main-not-at-root", "bot.zip", make_zip([("src/main.py", FIRST_ACTION_BOT)]), "no main.py at its root"),
        ("parent-path", "bot.zip", make_zip([main, ("../evil.py", b"x = 1\n")]), "outside the archive"),
        ("absolute-path", "bot.zip", make_zip([main, ("/etc/evil.py", b"x = 1\n")]), "absolute path"),
        ("symlink", "bot.zip", make_zip([main, (_unix_entry("link", stat.S_IFLNK | 0o777), b"/etc/passwd")]),
         "symbolic link"),
        ("special-file", "bot.zip", make_zip([main, (_unix_entry("fifo", stat.S_IFIFO | 0o644), b"")]),
         "special file"),
        ("too-many-entries", "bot.zip", make_zip([main] + [(f"f{i}.txt", b"x") for i in range(200)]),
         "the limit is 200"),
        ("unpacks-too-large", "bot.zip", make_zip([main, ("zeros.bin", b"\0" * (20 * 1024 * 1024 + 1))]),
         "20 MiB"),
        ("main-syntax-error", "bot.zip", make_zip([("main.py", b"def broken(:\n")]), "syntax error"),
        # The code checked must be the code that runs: one name, one file.
        ("same-file-twice", "bot.zip", make_zip([main, ("./main.py", b"import os\nos.system('evil')\n")]),
         "are the same file"),
        ("same-file-with-doubled-slashes", "bot.zip",
         make_zip([main, ("lib/helper.py", b"x = 1\n"), ("lib//helper.py", b"x = 2\n")]), "are the same file"),
        # What could not be unpacked in the sandbox is refused now, not in the smoke test.
        ("file-beside-a-folder", "bot.zip", make_zip([main, ("helper", b"a file"), ("helper/x.py", b"x = 1\n")]),
         "a file and also a folder"),
        ("name-too-long", "bot.zip", make_zip([main, ("a" * 300 + ".py", b"x = 1\n")]), "longer than 255 bytes"),
    ]
