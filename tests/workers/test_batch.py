"""Batch mode of the local CLI: python -m workers.play GAME BOT [BOT ...] --games N [--jobs J] [--rotate]."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.workers.conftest import write_bot
from workers import batch

ROOT = Path(__file__).resolve().parents[2]
# A sandbox's start-up takes seconds on a machine loaded many times over (each builds its root
# afresh): generous, so that only a bot's own doing faults it here.
LIMITS = ["--move-ms", "500", "--bank-ms", "1500", "--init-ms", "60000"]


def play(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.play", *args], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_rotation_puts_every_bot_in_every_seat_equally_often():
    games = batch.batch_games(3, 6, seed=10, rotate=True)
    assert [g.seed for g in games] == list(range(10, 16))
    for bot in range(3):
        assert sorted(g.order.index(bot) for g in games) == [0, 0, 1, 1, 2, 2]
    assert all(g.order == (0, 1, 2) for g in batch.batch_games(3, 4, seed=0, rotate=False))


def test_the_summary_counts_wins_scores_faults_and_timing_per_bot_across_seats():
    timing = {"decisions": 2, "mean_ms": 1.0, "p95_ms": 1.5, "max_ms": 2.0}
    played = [
        (batch.BatchGame(0, 0, (0, 1)), {"scores": [5, 3], "ranks": [1, 2], "faults": [], "timing": [timing, timing]}),
        (batch.BatchGame(1, 1, (1, 0)), {"scores": [4, 7], "ranks": [2, 1],
                                         "faults": [{"seat": 0, "kind": "timeout"}], "timing": [timing, timing]}),
    ]
    first, second = batch.summarise(("A", "B"), played)
    assert first["wins"] == 2 and first["mean_score"] == 6.0 and first["faults"] == {}
    assert second["wins"] == 0 and second["mean_score"] == 3.5 and second["faults"] == {"timeout": 1}
    assert first["timing"]["decisions"] == 4 and first["timing"]["max_ms"] == 2.0
    # Wilson's interval: two wins in two games do not make a sure thing.
    assert first["win_rate_ci"] == [0.3424, 1.0] and second["win_rate_ci"] == [0.0, 0.6576]


def test_a_batch_prints_win_rates_and_mean_scores_with_intervals(tmp_path):
    done = play("deep_sea_adventure", "builtin:heuristic", "builtin:random", "builtin:random", "--games", "6",
                "--rotate", "--seed", "3", "--jobs", "2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == 6 and data["seeds"] == [3, 8] and data["rotate"] is True
    assert [row["bot"] for row in data["bots"]] == ["builtin:heuristic", "builtin:random", "builtin:random"]
    for row in data["bots"]:
        assert row["games"] == 6
        assert row["win_rate_ci"][0] <= row["win_rate"] <= row["win_rate_ci"][1]
        assert row["mean_score_ci"][0] <= row["mean_score"] <= row["mean_score_ci"][1]
        assert row["timing"]["decisions"] > 0
    assert sum(row["wins"] for row in data["bots"]) >= 6
    assert "6/6 games" in done.stderr


def test_a_batch_counts_each_bots_faults_by_kind(tmp_path):
    liar = write_bot(tmp_path, "liar", 'import arena_bot\narena_bot.run(lambda o, l, r: {"type": "cheat"})\n')
    done = play("deep_sea_adventure", liar, "builtin:random", "--games", "3", "--jobs", "2", *LIMITS)
    assert done.returncode == 0, done.stderr
    assert "wins 0/3" in done.stdout and "faults: illegal 3" in done.stdout
    assert "wins 3/3" in done.stdout


def test_batch_options_without_a_batch_or_with_a_replay_are_refused(tmp_path):
    for args, message in ((["--jobs", "2"], "give --games"), (["--rotate"], "give --games"),
                          (["--games", "2", "--replay", str(tmp_path / "r.json.gz")], "a batch"),
                          (["--games", "0"], "at least 1 game"), (["--games", "2", "--jobs", "0"], "at least 1 job")):
        done = play("deep_sea_adventure", "builtin:random", "builtin:random", *args)
        assert done.returncode == 2 and message in done.stderr and done.stdout == "", args
    assert not (tmp_path / "r.json.gz").exists()
