"""What a bot sees of the machine (issue 26): its own root with its runtime's files, nothing else."""

from __future__ import annotations

import json
import os
import select
import time

import pytest

from tests.workers.conftest import TEST_LIMITS, write_bot
from workers.sandbox import RUNTIME_DIR_ENV, SandboxedProcess, bwrap_path
from workers.sandbox import process as sandbox_process
from workers.sandbox.image import cached_files, image_for
from workers.sandbox.runtimes import PYTHON, Runtime, RuntimeFile, RuntimeFiles

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="bubblewrap is not installed")

LOOK_AROUND = """
import json, os, sys
files, total = [], 0
for folder, dirs, names in os.walk("/"):
    if folder in ("/proc", "/dev"):
        dirs[:] = []
        continue
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            files.append(path)
            total += os.path.getsize(path)
root = os.stat("/")
print(json.dumps({"top": sorted(os.listdir("/")), "files": files, "bytes": total,
                  "libs": sorted(os.listdir("/usr/lib/x86_64-linux-gnu")) if os.path.isdir("/usr/lib/x86_64-linux-gnu") else [],
                  "mountinfo": open("/proc/self/mountinfo").read(), "root_dev": root.st_dev,
                  "path": sys.path}), flush=True)
sys.stdin.readline()
"""


def _look(process: SandboxedProcess) -> dict:
    data = b""
    deadline = time.monotonic() + 30
    while b"\n" not in data:
        assert time.monotonic() < deadline, "the bot said nothing"
        if select.select([process.stdout_fd], [], [], 0.1)[0]:
            chunk = os.read(process.stdout_fd, 1 << 20)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def _check_view(view: dict, masks_from_the_host: bool = False) -> None:
    image = image_for(PYTHON)
    expected = {path for path, _, _, _ in image.entries} | {"/bot/main.py"}
    assert view["top"] == ["arena", "bot", "dev", "lib", "lib64", "opt", "proc", "tmp", "usr"]
    assert set(view["files"]) == expected
    assert view["bytes"] < image.size + 64 * 1024
    assert all(not name.startswith(("libssl", "libcrypto", "libstdc++", "libgcc")) for name in view["libs"])
    # No folder of the host shows through a mount: the root is the sandbox's own tmpfs (without
    # the right to mount, /proc's masks are the runtime directory's empty file and folder, and
    # /bot the slot's staged copy of the bot, made for this sandbox alone).
    mountinfo = view["mountinfo"]
    if masks_from_the_host:
        mountinfo = "\n".join(line for line in mountinfo.splitlines()
                               if "/run/dive-arena/empty-" not in line and " /bot " not in line)
    for host_path in ("/run/dive-arena", "/root", "/work", "/usr/lib ", "site-packages", "ext4"):
        assert host_path not in mountinfo, mountinfo
    assert view["path"][2:] == ["/opt/python/lib/python311.zip", "/opt/python/lib/python3.11",
                                "/opt/python/lib/python3.11/lib-dynload"]


def test_a_bot_sees_its_runtime_and_its_files_only(tmp_path):
    bot = write_bot(tmp_path, "look", LOOK_AROUND)
    first, second = SandboxedProcess(bot, TEST_LIMITS.sandbox()), SandboxedProcess(bot, TEST_LIMITS.sandbox())
    try:
        views = [_look(first), _look(second)]
    finally:
        first.close()
        second.close()
    for view in views:
        _check_view(view)
    # Two sandboxes alive together have two roots (two tmpfs superblocks), not one.
    assert views[0]["root_dev"] != views[1]["root_dev"]


def test_without_the_right_to_mount_bwrap_writes_the_same_private_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_process, "can_mount", lambda: False)
    bot = write_bot(tmp_path, "look", LOOK_AROUND)
    process = SandboxedProcess(bot, TEST_LIMITS.sandbox())
    try:
        view = _look(process)
    finally:
        process.close()
    _check_view(view, masks_from_the_host=True)


def test_a_runtime_is_built_once_and_again_when_its_inputs_change(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path / "runtime"))
    source = tmp_path / "input"
    source.write_text("first")
    calls = []

    def collect() -> RuntimeFiles:
        calls.append(1)
        return RuntimeFiles((RuntimeFile("/x", source=str(source), mode=0o755),), (("/y", "x"),))

    runtime = Runtime("python", "main.py", ("/x",), collect, inputs=lambda: [str(source)])
    first, again = cached_files(runtime), cached_files(runtime)
    assert len(calls) == 1                       # the second came from the runtime directory's copy
    assert first == again and first.files[0].data == b"first" and first.files[0].mode == 0o755
    assert first.symlinks == (("/y", "x"),)
    source.write_text("second!")
    assert cached_files(runtime).files[0].data == b"second!" and len(calls) == 2
    assert len(list((tmp_path / "runtime" / "images").glob("*.img"))) == 1     # the stale copy is gone


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_spare_root_is_used_once_and_never_of_another_image(tmp_path, monkeypatch):
    from workers.sandbox.image import RuntimeImage
    from workers.sandbox.rootfs import SlotRoot

    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path / "runtime"))
    image = RuntimeImage(RuntimeFiles((RuntimeFile("/opt/x", data=b"x" * 100),)))
    slot_folder = tmp_path / "runtime" / "slot-0"
    root = SlotRoot(slot_folder, image, 1024 * 1024)
    try:
        root.replace()                                   # the spare the next sandbox will take
        (root.path / "tmp" / "left-by-the-filler").touch()
        taken = root.take()
        assert (taken / "tmp" / "left-by-the-filler").exists() and (taken / "opt" / "x").read_bytes() == b"x" * 100
        assert not root.marker.exists()                  # used from now on
        (taken / "bot" / "main.py").write_text("a bot's trace")
        again = root.take()                              # no spare: a fresh root, nothing of the last one
        assert not (again / "bot" / "main.py").exists() and (again / "opt" / "x").exists()
        root.replace()
        root.marker.write_text("another image layout 2\n")   # a spare of another image is never taken
        (root.path / "tmp" / "stale").touch()
        assert not (root.take() / "tmp" / "stale").exists()
    finally:
        root.drop()
        image.close()
    assert not os.path.ismount(root.path)
