"""Uploads in other languages than Python: validated per language, built once in the sandbox
before the smoke test (real toolchains), refused with the compiler's messages when the build
fails; the build log is the owner's and staff's only."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.bots.models import BotVersion
from arena.bots.services import bot_create
from arena.matches.smoke import smoke_tests_of
from arena.runs.tasks import smoke_test_version
from arena.bots.uploads import upload_check

KITS = Path(__file__).resolve().parents[2] / "starter_kits"
DSA = "deep_sea_adventure"


def kit_zip(language: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((KITS / language / DSA).iterdir()):
            archive.write(path, path.name)
    return buffer.getvalue()


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


@pytest.mark.parametrize("name,data,language,kind", [
    ("bot.cpp", b"int main() {}\n", "cpp", "source"),
    ("bot.rs", b"fn main() {}\n", "rust", "source"),
    ("bot.go", b"package main\nfunc main() {}\n", "go", "source"),
    ("bot.js", b"console.log(1)\n", "javascript", "source"),
    ("Main.java", b"public class Main { public static void main(String[] a) {} }\n", "java", "source"),
    ("bot.py", b"print(1)\n", "python", "py"),
])
def test_a_single_source_file_gives_its_language_by_its_suffix(name, data, language, kind):
    checked = upload_check(filename=name, data=data)
    assert (checked.language, checked.kind) == (language, kind)


@pytest.mark.parametrize("language", ["cpp", "rust", "go", "javascript", "java"])
def test_a_kit_zip_gives_its_language_by_its_entry_file(language):
    assert upload_check(filename="kit.zip", data=kit_zip(language)).language == language


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("files,code", [
    ({"main.cpp": b"int main() {}", "main.py": b"print(1)"}, "two_entries"),
    ({"bot.cpp": b"int main() {}"}, "no_main"),
    ({"src/main.rs": b"fn main() {}"}, "no_main"),
    ({"main.go": b"\xff\xfe not text"}, "not_utf8"),
])
def test_a_zip_without_exactly_one_entry_file_or_with_binary_sources_is_refused(files, code):
    with pytest.raises(ValidationError) as caught:
        upload_check(filename="bot.zip", data=_zip(files))
    assert caught.value.code == code


def test_a_cpp_kit_is_built_then_smoke_tested_and_becomes_active(owner, db):
    bot = bot_create(owner=owner, name="cpp-kit", game=DSA, upload=upload("kit.zip", kit_zip("cpp")))
    version = bot.versions.get()
    assert version.language == "cpp" and version.build_status == ""
    assert smoke_test_version(version.pk) == "ready"
    version.refresh_from_db()
    bot.refresh_from_db()
    assert version.build_status == "ok" and version.toolchain.startswith("g++")
    assert version.artifact_size == len(bytes(version.artifact)) > 0 and len(version.artifact_sha256) == 64
    assert bot.active_version_id == version.pk
    assert any(t.status == "passed" for t in smoke_tests_of(version_ids=[version.pk])[version.pk])


def test_a_version_that_does_not_build_fails_with_the_compilers_message_and_plays_nothing(
        owner, other_user, staff, db):
    source = b"int main() { return not_declared_anywhere; }\n"
    bot = bot_create(owner=owner, name="broken-cpp", game=DSA, upload=upload("main.cpp", source))
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "failed"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED and version.build_status == "failed"
    assert "does not build" in version.validation_log and "not_declared_anywhere" in version.validation_log
    assert "not_declared_anywhere" in version.build_log
    assert all(t.status == "skipped" for t in smoke_tests_of(version_ids=[version.pk]).get(version.pk, []))
    assert not bytes(version.artifact)
    # The build log: the owner and staff read it, nobody else.
    for user, sees in ((owner, True), (staff, True), (other_user, False)):
        client = Client()
        client.force_login(user)
        data = client.get(f"/api/bots/{bot.pk}/versions/").json()
        rows = data["results"] if isinstance(data, dict) else data
        assert ("not_declared_anywhere" in (rows[0]["build_log"] or "")) is sees, user
        assert rows[0]["language"] == "cpp"
        page = client.get(f"/bots/{bot.pk}/").content.decode()
        assert ("not_declared_anywhere" in page) is sees, user
        assert "C++" in page
