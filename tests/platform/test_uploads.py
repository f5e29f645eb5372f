"""Every upload rule: each bad upload gets its own message and stores nothing."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest
from django.core.exceptions import ValidationError

from arena.bots.models import Bot, BotVersion
from arena.bots.services import bot_create, bot_version_create
from arena.bots.uploads import MAX_PY_BYTES, MAX_ZIP_BYTES, MAX_ZIP_ENTRIES
from tests.factories import SIMPLE_BOT, py_upload

MAIN = SIMPLE_BOT


def make_zip(entries: list[tuple] | None = None, compression=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip with ``(name, data)`` or ``(ZipInfo, data)`` entries (default: just main.py)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries if entries is not None else [("main.py", MAIN)]:
            archive.writestr(name, data)
    return buffer.getvalue()


def unix_entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


def assert_rejected(owner, filename: str, data: bytes, code: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as caught:
        bot_create(owner=owner, name="rejected", game=GAME, upload=py_upload(data, filename))
    assert caught.value.code == code
    assert fragment in caught.value.messages[0]
    assert not Bot.objects.exists()
    assert not BotVersion.objects.exists()


GAME = "deep_sea_adventure"


@pytest.fixture(autouse=True)
def _game(game_id):
    global GAME
    GAME = game_id


def test_it_accepts_a_single_python_file(owner):
    bot = bot_create(owner=owner, name="plain", game=GAME, upload=py_upload())
    version = bot.versions.get()
    assert version.kind == "py" and version.status == "pending"
    assert bytes(version.archive) == MAIN and version.size == len(MAIN) and len(version.sha256) == 64


def test_it_accepts_a_zip_with_main_py_at_its_root(owner):
    data = make_zip([("main.py", MAIN), ("lib/helper.py", b"X = 1\n"), ("lib/", b"")])
    bot = bot_create(owner=owner, name="zipped", game=GAME, upload=py_upload(data, "bot.zip"))
    assert bot.versions.get().kind == "zip"


def test_it_accepts_python_saved_with_a_utf8_byte_order_mark_as_python_runs_it(owner):
    with_bom = b"\xef\xbb\xbf" + MAIN  # what Windows editors often write
    bot = bot_create(owner=owner, name="bom", game=GAME, upload=py_upload(with_bom))
    assert bytes(bot.versions.get().archive) == with_bom
    zipped = bot_create(owner=owner, name="bom-zip", game=GAME,
                        upload=py_upload(make_zip([("main.py", with_bom)]), "bot.zip"))
    assert zipped.versions.get().kind == "zip"


def test_it_rejects_another_extension(owner):
    assert_rejected(owner, "bot.tar.gz", MAIN, "bad_extension", ".py file or a .zip")


def test_it_rejects_an_empty_file(owner):
    assert_rejected(owner, "bot.py", b"", "empty", "is empty")


def test_it_rejects_a_python_file_over_one_mib(owner):
    data = b"#" * MAX_PY_BYTES + b"\n"
    assert_rejected(owner, "bot.py", data, "too_large", "1 MiB")


def test_it_accepts_a_python_file_of_exactly_one_mib(owner):
    data = MAIN + b"#" * (MAX_PY_BYTES - len(MAIN))
    bot = bot_create(owner=owner, name="exact", game=GAME, upload=py_upload(data))
    assert bot.versions.get().size == MAX_PY_BYTES


def test_it_rejects_python_with_a_syntax_error(owner):
    assert_rejected(owner, "bot.py", b"def broken(:\n", "syntax_error", "line 1")


def test_it_rejects_python_that_is_not_utf8(owner):
    assert_rejected(owner, "bot.py", b"x = '\xff\xfe'\n", "not_utf8", "UTF-8")


def test_it_rejects_a_file_named_zip_that_is_not_one(owner):
    assert_rejected(owner, "bot.zip", b"PK not really", "not_a_zip", "not a valid .zip")


def test_it_rejects_a_zip_over_five_mib_packed(owner):
    import os
    data = make_zip([("main.py", MAIN), ("noise.bin", os.urandom(MAX_ZIP_BYTES))], zipfile.ZIP_STORED)
    assert_rejected(owner, "bot.zip", data, "too_large", "5 MiB")


def test_it_rejects_a_zip_unpacking_past_twenty_mib(owner):
    data = make_zip([("main.py", MAIN), ("zeros.bin", b"\0" * (21 * 1024 * 1024))])
    assert len(data) < MAX_ZIP_BYTES
    assert_rejected(owner, "bot.zip", data, "unpacked_too_large", "20 MiB")


def test_it_rejects_a_zip_whose_headers_understate_the_unpacked_size(owner):
    data = bytearray(make_zip([("main.py", MAIN), ("zeros.bin", b"\0" * (21 * 1024 * 1024))]))
    # Forge the declared size of zeros.bin (local and central headers) down to 1 byte.
    real = (21 * 1024 * 1024).to_bytes(4, "little")
    assert data.count(real) == 2
    data = bytes(data).replace(real, (1).to_bytes(4, "little"))
    with pytest.raises(ValidationError) as caught:
        bot_create(owner=owner, name="liar", game=GAME, upload=py_upload(data, "bot.zip"))
    assert caught.value.code in {"unpacked_too_large", "corrupt_entry"}
    assert not BotVersion.objects.exists()


def test_it_rejects_a_zip_with_more_than_two_hundred_entries(owner):
    entries = [("main.py", MAIN)] + [(f"f{i}.txt", b"x") for i in range(MAX_ZIP_ENTRIES)]
    assert_rejected(owner, "bot.zip", make_zip(entries), "too_many_entries", "limit is 200")


def test_it_rejects_a_zip_with_an_absolute_path(owner):
    assert_rejected(owner, "bot.zip", make_zip([("main.py", MAIN), ("/etc/evil", b"x")]),
                    "absolute_path", "absolute path")


def test_it_rejects_a_zip_with_a_path_outside_the_archive(owner):
    assert_rejected(owner, "bot.zip", make_zip([("main.py", MAIN), ("lib/../../evil.py", b"x")]),
                    "parent_path", "outside the archive")


def test_it_rejects_a_zip_with_a_symlink(owner):
    data = make_zip([("main.py", MAIN), (unix_entry("link", stat.S_IFLNK | 0o777), b"/etc/passwd")])
    assert_rejected(owner, "bot.zip", data, "symlink", "symbolic link")


def test_it_rejects_a_zip_with_a_special_file(owner):
    data = make_zip([("main.py", MAIN), (unix_entry("fifo", stat.S_IFIFO | 0o644), b"")])
    assert_rejected(owner, "bot.zip", data, "special_file", "special file")


def test_it_rejects_a_zip_without_main_py_at_its_root(owner):
    data = make_zip([("bot/main.py", MAIN)])
    assert_rejected(owner, "bot.zip", data, "no_main", "no main.py at its root")


def test_a_zip_of_the_bot_folder_instead_of_its_files_is_told_how_to_zip_it(owner):
    data = make_zip([("my-bot/", b""), ("my-bot/main.py", MAIN), ("my-bot/lib/main.py", b"X = 1\n")])
    assert_rejected(owner, "bot.zip", data, "no_main",
                    "It has my-bot/main.py: zip the files inside that folder, not the folder itself.")


def test_it_rejects_a_zip_whose_main_py_does_not_parse(owner):
    assert_rejected(owner, "bot.zip", make_zip([("main.py", b"def (\n")]), "syntax_error", "main.py line 1")


def test_it_rejects_a_zip_with_a_corrupt_entry(owner):
    data = bytearray(make_zip([("main.py", MAIN)], zipfile.ZIP_STORED))
    at = bytes(data).index(b"import json")
    data[at] = ord("X")  # CRC no longer matches
    assert_rejected(owner, "bot.zip", bytes(data), "corrupt_entry", "corrupt")


def test_a_bad_new_version_stores_nothing_and_keeps_the_active_one(make_bot, owner):
    bot = make_bot("keeper", GAME)
    active = bot.active_version
    with pytest.raises(ValidationError):
        bot_version_create(bot=bot, upload=py_upload(b"", "bot.py"), by=owner)
    bot.refresh_from_db()
    assert bot.versions.count() == 1 and bot.active_version == active


@pytest.mark.parametrize("entries, code, fragment", [
    ([("main.py", MAIN), ("./main.py", b"print('not the checked code')\n")], "duplicate_entry",
     "'main.py' and './main.py' are the same file"),
    ([("main.py", MAIN), ("a/./b.py", b"x = 1\n"), ("a/b.py", b"x = 2\n")], "duplicate_entry", "are the same file"),
    ([("main.py", MAIN), ("helper", b"a file"), ("helper/x.py", b"x = 1\n")], "name_clash",
     "'helper': it is a file and also a folder"),
    ([("main.py", MAIN), ("helper/", b""), ("helper", b"a file")], "name_clash", "a file and also a folder"),
    ([("main.py", MAIN), ("d/" + "n" * 256, b"")], "name_too_long", "longer than 255 bytes"),
    ([("main.py", MAIN), ("/".join(["deep"] * 300) + "/x.py", b"")], "name_too_long", "longer than 1024 bytes"),
])
def test_a_zip_the_sandbox_could_not_unpack_as_checked_is_refused_at_upload_saying_why(
        owner, entries, code, fragment):
    with pytest.raises(ValidationError) as caught:
        bot_create(owner=owner, name="unpackable", game=GAME, upload=py_upload(make_zip(entries), "mine.zip"))
    message = caught.value.messages[0]
    assert caught.value.code == code and fragment in message, message
    assert message.startswith("mine.zip") and "/tmp" not in message and "arena-upload" not in message
    assert not Bot.objects.filter(name="unpackable").exists() and not BotVersion.objects.exists()


def test_a_zip_with_a_folder_entry_and_files_in_it_is_accepted(owner):
    data = make_zip([("main.py", MAIN), ("lib/", b""), ("lib/helper.py", b"x = 1\n"), ("./README", b"hi")])
    bot = bot_create(owner=owner, name="foldered", game=GAME, upload=py_upload(data, "ok.zip"))
    assert bot.versions.get().status == "pending"
