"""python -m workers.play --from-replay FILE --seat S [--until-step K] BOT: a recorded match played again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workers.conftest import write_bot
from workers import replay as replays

ROOT = Path(__file__).resolve().parents[2]
# A sandbox's start-up takes seconds on a machine loaded many times over (each builds its root
# afresh): generous, so that only a bot's own doing faults it here.
LIMITS = ["--move-ms", "500", "--bank-ms", "1500", "--init-ms", "60000"]
KIT = "starter_kits/deep_sea_adventure/main.py"


def play(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.play", *args], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rerun") / "match.replay.json.gz"
    done = play("deep_sea_adventure", KIT, "builtin:heuristic", "--seed", "4", "--replay", str(path), *LIMITS)
    assert done.returncode == 0, done.stderr
    return path


def rerun(*args: str) -> dict:
    done = play(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_recorded_bot_in_its_seat_plays_the_whole_match_again_choice_for_choice(recorded):
    steps = replays.step_count(replays.load(recorded))
    data = rerun("--from-replay", str(recorded), "--seat", "0", KIT)
    assert data["finished"] and data["reason"] == "finished: the game is over"
    assert data["steps_played"] == data["recorded_steps"] == steps
    assert data["different_choices"] == 0 and data["same_choices"] == data["timing"]["decisions"] > 0
    assert data["result"]["scores"] == replays.load(recorded)["result"]["scores"]


def test_another_bot_plays_until_the_recorded_actions_no_longer_apply_and_says_where(recorded):
    data = rerun("--from-replay", str(recorded), "--seat", "1", "builtin:random")
    assert data["different_choices"] >= 1
    first = data["differences"][0]
    assert first["recorded"] != first["chosen"]
    if not data["finished"]:
        assert data["reason"].startswith(f"stopped before step {data['steps_played']}:")
        assert "left the recorded path" in data["reason"]


def test_until_step_stops_after_that_step(recorded):
    data = rerun("--from-replay", str(recorded), "--seat", "0", "--until-step", "5", KIT)
    assert data["steps_played"] == 6 and not data["finished"] and data["result"] is None
    assert data["reason"] == "stopped after step 5: --until-step 5"


def test_a_bot_that_faults_stops_the_run_at_that_step_with_its_fault(recorded, tmp_path):
    bot = write_bot(tmp_path, "crasher", """
        import sys, arena_bot
        calls = []
        def choose(observation, legal, rng):
            calls.append(1)
            if len(calls) == 3:
                print("giving up here", file=sys.stderr, flush=True)
                raise SystemExit(3)
            return 0
        arena_bot.run(choose)
    """)
    done = play("--from-replay", str(recorded), "--seat", "0", bot)
    assert done.returncode == 0, done.stderr
    assert "the bot faulted (crash)" in done.stdout and "giving up here" in done.stdout


def test_bad_input_is_refused_with_exit_2(recorded, tmp_path):
    other_engine = replays.load(recorded)
    other_engine["engine_version"] = "0-old"
    old = tmp_path / "old.replay.json.gz"
    replays.save(other_engine, old)
    junk = tmp_path / "junk.json.gz"
    junk.write_text("not a replay")
    for args, message in (
            (["--from-replay", str(tmp_path / "missing.gz"), "--seat", "0", KIT], "cannot read"),
            (["--from-replay", str(junk), "--seat", "0", KIT], "not a replay"),
            (["--from-replay", str(recorded), "--seat", "2", KIT], "seats 0 to 1"),
            (["--from-replay", str(recorded), "--seat", "0", "--until-step", "-1", KIT], "numbered from 0"),
            (["--from-replay", str(old), "--seat", "0", KIT], "engine version"),
            (["--from-replay", str(recorded), "--seat", "0", "builtin:nobody"], "no built-in bot")):
        done = play(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and done.stdout == "", (args, done.stderr)
