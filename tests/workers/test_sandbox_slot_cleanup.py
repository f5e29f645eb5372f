"""A killed match leaves its bot staged in its sandbox slot: idle slots are cleared, held ones kept."""

from __future__ import annotations

import os

import pytest

from workers.sandbox import RUNTIME_DIR_ENV, acquire_slot, clear_idle_slots
from workers.sandbox.image import RuntimeImage
from workers.sandbox.rootfs import SlotRoot
from workers.sandbox.runtimes import RuntimeFile, RuntimeFiles


def test_the_staged_bot_of_a_slot_nobody_holds_is_removed_and_a_held_one_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path))
    left, held = acquire_slot(), acquire_slot()
    for slot in (left, held):
        (slot.directory / "bot").mkdir(parents=True)
        (slot.directory / "bot" / "main.py").write_text("print('a strategy')")
    left.release()  # its match was killed: the lock went with the process, the files stayed
    try:
        assert clear_idle_slots() == 1
        assert not (left.directory / "bot").exists()
        assert (held.directory / "bot" / "main.py").exists()
    finally:
        held.release()
    assert clear_idle_slots() == 1 and clear_idle_slots() == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_the_bot_tmpfs_a_killed_match_left_in_an_idle_slot_is_unmounted_and_the_root_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(RUNTIME_DIR_ENV, str(tmp_path))
    image = RuntimeImage(RuntimeFiles((RuntimeFile("/opt/x", data=b"x"),)))
    slot = acquire_slot()
    root = SlotRoot(slot.directory, image, 1024 * 1024)
    try:
        _, bot = root.take()
        bot.mkdir()
        (bot / "main.py").write_text("print('a strategy')")
        slot.release()   # its match was killed: the lock went with the process, the bot's tmpfs stayed
        assert clear_idle_slots() == 1
        assert not os.path.ismount(root.bot_mount) and os.path.ismount(root.path)
        assert clear_idle_slots() == 0
    finally:
        root.drop()
        image.close()
