"""Scratch folders with bots' archives: a killed task's folder is removed, a running task's is not."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from django.test import override_settings

from arena.jobs.scratch import scratch_folder, scratch_is_stale, scratch_remove_stale


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_task_folder_holds_the_host_and_process_and_goes_away_with_the_task():
    with scratch_folder("match", 12) as folder:
        assert folder.is_dir() and f"-p{os.getpid()}-" in folder.name and folder.name.startswith("arena-match-12-")
        assert not scratch_is_stale(folder.name, age=1.0)  # this process is alive
    assert not folder.exists()


@override_settings(MATCH_HARD_TIME_LIMIT=100, MATCH_STUCK_GRACE=10)
def test_folders_of_killed_tasks_are_removed_and_the_others_kept(tmp_path):
    from arena.jobs.scratch import _host

    host = _host()
    dead, alive = _dead_pid(), os.getpid()
    names = {
        "dead": f"arena-match-1-{host}-p{dead}-abc",
        "alive": f"arena-smoke-2-{host}-p{alive}-def",
        "elsewhere": f"arena-match-3-other.host-p{dead}-ghi",  # another machine's: only age tells
        "old-elsewhere": f"arena-match-4-other.host-p{dead}-jkl",
        "legacy-old": "arena-match-5-mno",
        "unrelated": "arena-something-else",
    }
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text("print('secret strategy')")
    old = time.time() - 200
    for key in ("old-elsewhere", "legacy-old", "unrelated"):
        os.utime(tmp_path / names[key], (old, old))
    removed = {path.name for path in scratch_remove_stale(root=tmp_path)}
    assert removed == {names["dead"], names["old-elsewhere"], names["legacy-old"]}
    assert {p.name for p in tmp_path.iterdir()} == {names["alive"], names["elsewhere"], names["unrelated"]}
