"""A killed match leaves its bot staged in its sandbox slot: idle slots are cleared, held ones kept."""

from __future__ import annotations

from workers.sandbox import RUNTIME_DIR_ENV, acquire_slot, clear_idle_slots


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
