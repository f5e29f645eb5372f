"""What a bot sees of the machine (issue 26): its own root with its runtime's files, nothing else."""

from __future__ import annotations

import json
import os
import select
import time

import pytest

from tests.workers.conftest import TEST_LIMITS, write_bot
from workers.sandbox import RUNTIME_DIR_ENV, SandboxedProcess, SandboxError, acquire_slot, bwrap_path
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
                  "code_file": json.decoder.JSONDecoder.decode.__code__.co_filename,
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
    # The standard library's code objects name their sandbox paths, never the host's prefix.
    assert view["code_file"] == "/opt/python/lib/python3.11/json/decoder.py"
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
def test_a_slot_root_is_reused_after_a_clean_end_only_and_never_for_another_image(tmp_path, monkeypatch):
    from workers.sandbox.image import RuntimeImage
    from workers.sandbox.rootfs import SlotRoot

    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path / "runtime"))
    image = RuntimeImage(RuntimeFiles((RuntimeFile("/opt/x", data=b"x" * 100),)))
    slot_folder = tmp_path / "runtime" / "slot-0"
    root = SlotRoot(slot_folder, image, 1024 * 1024)
    try:
        taken, bot = root.take()                         # the slot's first use: filled now
        assert (taken / "opt" / "x").read_bytes() == b"x" * 100 and not root.marker.exists()   # in use
        assert os.path.ismount(root.bot_mount) and bot.parent == root.bot_mount and not bot.exists()
        (root.bot_mount / "a bot's trace").write_text("x")
        (taken / "tmp" / "left-by-the-filler").touch()
        device = os.stat(taken).st_dev
        root.release()                                   # a clean end: the root stays, the bot's tmpfs goes
        assert root.marker.exists() and not os.path.ismount(root.bot_mount)
        again, _ = root.take()
        assert os.stat(again).st_dev == device and (again / "tmp" / "left-by-the-filler").exists()
        assert os.path.ismount(root.bot_mount) and not (root.bot_mount / "a bot's trace").exists()
        root.release(clean=False)                        # a process may have survived: nothing is kept
        assert not os.path.ismount(root.path) and not root.marker.exists()
        fresh, _ = root.take()
        assert not (fresh / "tmp" / "left-by-the-filler").exists() and (fresh / "opt" / "x").exists()
        (fresh / "tmp" / "stale").touch()
        root.release()
        root.marker.write_text("another image layout 3\n")   # a root of another image is never used
        assert not (root.take()[0] / "tmp" / "stale").exists()
        (root.path / "tmp" / "stale").touch()
        # A runner killed while its sandbox ran leaves no marker: the slot's next holder fills afresh.
        later = SlotRoot(slot_folder, image, 1024 * 1024)
        assert not later.ready() and not (later.take()[0] / "tmp" / "stale").exists()
    finally:
        root.drop()
        image.close()
    assert not os.path.ismount(root.path) and not os.path.ismount(root.bot_mount)


def _locked_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmLck:"))


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_with_swap_on_a_root_is_locked_in_memory_and_reused_only_by_the_process_holding_the_lock(
        tmp_path, monkeypatch):
    from workers.sandbox import rootfs
    from workers.sandbox.image import RuntimeImage

    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path / "runtime"))
    monkeypatch.setattr(rootfs, "swap_active", lambda: True)
    image = RuntimeImage(RuntimeFiles((RuntimeFile("/opt/x", data=b"x" * (1 << 20)),)))
    slot_folder = tmp_path / "runtime" / "slot-0"
    root = rootfs.SlotRoot(slot_folder, image, 1024 * 1024)
    before = _locked_kib()
    try:
        taken, _ = root.take()
        assert _locked_kib() - before >= 1024            # every page of the runtime's files
        (taken / "tmp" / "mark").touch()
        root.release()
        assert rootfs.SlotRoot(slot_folder, image, 1024 * 1024).ready()
        stamp, maps = rootfs._LOCKED.pop(root.path)      # as another process would find it: not locked by it
        assert not root.ready()
        rootfs._LOCKED[root.path] = (stamp, maps)
        rootfs._unlock(root.path)
        assert not (root.take()[0] / "tmp" / "mark").exists()   # filled (and locked) afresh
        assert _locked_kib() - before >= 1024
    finally:
        root.drop()
        image.close()
    assert _locked_kib() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_bots_files_are_on_a_tmpfs_of_its_own_and_the_runtime_on_the_slots(tmp_path):
    bot = write_bot(tmp_path, "look", LOOK_AROUND.replace('"path": sys.path}', '"path": sys.path, '
                                                          '"bot_dev": os.stat("/bot").st_dev}'))
    views, slot = [], None
    for _ in range(2):
        process = SandboxedProcess(bot, TEST_LIMITS.sandbox(), slot=slot)
        try:
            views.append(_look(process))
            index = process.slot.index
        finally:
            process.close()
        slot = acquire_slot(index=index)                 # the next sandbox in the same slot
    slot.release()
    assert views[0]["root_dev"] != views[0]["bot_dev"]
    assert views[1]["root_dev"] == views[0]["root_dev"]  # the slot's root again


def test_a_free_slot_whose_root_holds_the_runtime_is_taken_first(tmp_path, monkeypatch):
    from workers.sandbox.rootfs import holds

    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path / "runtime"))
    for index, stamp in ((2, "javascript layout 3"), (5, "python layout 3"), (7, "python layout 3")):
        (tmp_path / "runtime" / f"slot-{index}").mkdir(parents=True)
        (tmp_path / "runtime" / f"slot-{index}" / "root.ready").write_text(stamp + "\n")
    held = [acquire_slot(prefer=lambda folder: holds(folder, "python layout 3")) for _ in range(3)]
    held.append(acquire_slot(prefer=lambda folder: holds(folder, "javascript layout 3")))
    held.append(acquire_slot(prefer=lambda folder: holds(folder, "java layout 3")))
    try:
        # The two Python roots first (5, 7), then the lowest free slot; JavaScript's root is 2;
        # no slot holds Java's: the lowest free one.
        assert [slot.index for slot in held] == [5, 7, 0, 2, 1]
    finally:
        for slot in held:
            slot.release()


def test_a_machine_forcing_huge_pages_on_every_tmpfs_is_refused(tmp_path, monkeypatch):
    from workers.sandbox import rootfs

    knob = tmp_path / "shmem_enabled"
    knob.write_text("always within_size advise never deny [force]\n")
    monkeypatch.setattr(rootfs, "SHMEM_HUGE", knob)
    target = tmp_path / "root"
    target.mkdir()
    with pytest.raises(SandboxError, match="force"):
        rootfs.mount_tmpfs(target, 1024 * 1024)
    assert not os.path.ismount(target)
