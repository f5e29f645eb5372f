"""Compact replays (format version 2): what the runner records, expansion by re-simulation (equal
to the full form of the same match recorded with every view), verification, engine pinning."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engines import get_game
from tests.replay_support import FAULTY_BOT, GAME_SEATS, OPTIONS, SEEDS, v1_replay
from tests.workers.conftest import CLI_LIMITS, TEST_LIMITS, write_bot
from workers import replay as replays
from workers.replay import ReplayError, compact_steps, expand, to_full, verify
from workers.runner import STEP_HASH_CHARS, SeatSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
GAMES = list(GAME_SEATS)


def _play(game: str, folder: Path) -> dict:
    """The replay_support match of ``game`` (seat 1 answers an illegal action at its third decision)."""
    faulty = write_bot(folder, "faulty", FAULTY_BOT)
    seats = [SeatSpec(faulty if seat == "FAULTY" else seat, name=f"seat{index}", version="v1")
             for index, seat in enumerate(GAME_SEATS[game])]
    options = json.loads(OPTIONS[game]) if game in OPTIONS else None
    outcome = run_match(game, seats, seed=SEEDS[game], options=options, limits=TEST_LIMITS)
    assert [(f.seat, f.kind) for f in outcome.faults] == [(1, "illegal")]
    # Through JSON, as stored: views come back as lists and string keys.
    return json.loads(json.dumps(outcome.replay))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Per game: the same match recorded compact now, and recorded full by the runner before it
    recorded compact replays only (tests/fixtures/replays_v1)."""
    folder = tmp_path_factory.mktemp("compact")
    played = {}
    for game in GAMES:
        compact = _play(game, folder)
        # The seats' header has gained fields since the fixtures were recorded (each seat's
        # "language"): the full replay's seats as the runner names them now; the steps, views
        # and result are the fixture's own.
        played[game] = (compact, {**v1_replay(f"{game}-faulty"), "seats": compact["seats"]})
    return played


def _without_times(full: dict) -> dict:
    # The times of the bots differ from one run of a match to the next; nothing else may.
    full = copy.deepcopy(full)
    for step in full["steps"]:
        assert len(step.pop("ms")) == len(step["to_act"])
    return full


def test_the_runner_records_a_compact_replay_without_views(played):
    compact, _ = played["deep_sea_adventure"]
    assert compact["version"] == 2 and compact["engine_version"] == get_game("deep_sea_adventure").version
    assert set(compact) == {"format", "version", "game", "engine_version", "seed", "options", "num_players",
                            "seats", "limits", "initial", "steps", "faults", "result", "final", "step_hash_chars"}
    assert set(compact["initial"]) == {"hash"} and set(compact["final"]) == {"hash"}
    steps = compact["steps"]
    assert set(steps) == {"to_act", "actions", "ms", "by", "hash"}
    assert all(isinstance(index, int) for actions in steps["actions"] for index in actions)
    assert len(steps["hash"]) == STEP_HASH_CHARS * len(steps["to_act"])
    fault = compact["faults"][0]
    # Seat 1's third decision was illegal: from there on the fallback plays it, and only it.
    for number, step in enumerate(compact_steps(compact)):
        for seat, by in zip(step["to_act"], step["by"]):
            assert by == ("fallback" if seat == 1 and number >= fault["step"] else "bot")
    assert len(replays.compress(compact)) < len(replays.compress(played["deep_sea_adventure"][1])) / 5


@pytest.mark.parametrize("game", GAMES)
def test_expanding_a_compact_replay_gives_the_full_form_of_the_match_recorded_with_every_view(played, game):
    compact, full = played[game]
    assert compact_steps(compact)  # a match with steps, one of them a fault and fallback moves after it
    expanded = json.loads(json.dumps(expand(compact)))
    assert _without_times(expanded) == _without_times(json.loads(json.dumps(expand(full))))
    assert [step["ms"] for step in expanded["steps"]] == compact["steps"]["ms"]
    assert any(step.get("faults") for step in expanded["steps"])
    assert any("fallback" in step["by"] for step in expanded["steps"])


@pytest.mark.parametrize("game", GAMES)
def test_a_compact_replay_converts_to_the_full_replay_of_the_same_match(played, game):
    compact, full = played[game]
    converted = json.loads(json.dumps(to_full(compact)))
    assert _without_times(converted) == _without_times(full)
    assert verify(converted) == [] and verify(compact) == []


def _another_index(replay: dict) -> tuple[int, int, int]:
    """(step, position in to_act, index) of a legal action other than the recorded one."""
    state = get_game(replay["game"]).new_state(replay["num_players"], replay["seed"], replay["options"])
    for number, step in enumerate(compact_steps(replay)):
        for position, seat in enumerate(step["to_act"]):
            if len(state.legal_actions(seat)) > 1:
                return number, position, (step["actions"][position] + 1) % len(state.legal_actions(seat))
        state.apply({seat: state.legal_actions(seat)[index] for seat, index in zip(step["to_act"], step["actions"])})
    raise AssertionError("no step with a choice")


@pytest.mark.parametrize("game", GAMES)
def test_verify_catches_another_legal_action_at_the_step_it_was_changed(played, game):
    tampered = copy.deepcopy(played[game][0])
    number, position, index = _another_index(tampered)
    tampered["steps"]["actions"][number][position] = index
    problems = verify(tampered)
    # The next step's seats were shown something else: caught there (or, at the end, by the final hash).
    assert problems and any(f"step {number + 1}:" in p or "final position" in p or "seats to act" in p
                            for p in problems), problems
    with pytest.raises(ReplayError):
        expand(tampered)


def _with_hash(replay: dict, step: int, digits: str) -> dict:
    t = copy.deepcopy(replay)
    hashes = t["steps"]["hash"]
    t["steps"]["hash"] = hashes[:step * STEP_HASH_CHARS] + digits + hashes[(step + 1) * STEP_HASH_CHARS:]
    return t


@pytest.mark.parametrize("tamper", ["step_hash", "initial_hash", "final_hash", "index_out_of_range", "by",
                                    "fault_removed", "ranks", "scores", "seed", "dropped_step", "column_short"])
def test_any_tampering_with_a_compact_replay_fails_verification_and_expansion(played, tamper):
    replay = played["dive_diver_die"][0]
    t = copy.deepcopy(replay)
    if tamper == "step_hash":
        digits = replay["steps"]["hash"][5 * STEP_HASH_CHARS:6 * STEP_HASH_CHARS]
        t = _with_hash(replay, 5, "".join("0" if c != "0" else "1" for c in digits))
    elif tamper == "initial_hash":
        t["initial"]["hash"] = "0" * 64
    elif tamper == "final_hash":
        t["final"]["hash"] = "0" * 64
    elif tamper == "index_out_of_range":
        t["steps"]["actions"][0][0] = 99
    elif tamper == "by":
        t["steps"].pop("by")
    elif tamper == "fault_removed":
        t["faults"] = []
    elif tamper == "ranks":
        t["result"]["ranks"] = list(reversed(t["result"]["ranks"]))
    elif tamper == "scores":
        t["result"]["scores"][0] += 100
    elif tamper == "seed":
        t["seed"] += 1
    elif tamper == "dropped_step":
        for column in ("to_act", "actions", "ms", "by"):
            del t["steps"][column][-1]
        t["steps"]["hash"] = t["steps"]["hash"][:-STEP_HASH_CHARS]
    elif tamper == "column_short":
        del t["steps"]["ms"][-1]
    assert verify(t) != []
    if tamper not in ("ranks", "scores", "fault_removed", "by"):
        # What the views depend on: expansion refuses rather than show views the match did not have.
        with pytest.raises(ReplayError):
            expand(t)


def test_a_compact_replay_of_another_engine_version_is_never_re_simulated(played, tmp_path):
    replay = copy.deepcopy(played["deep_dive"][0])
    replay["engine_version"] = "0-older"
    with pytest.raises(ReplayError, match="engine version '0-older'.*never re-simulated.*replays_to_full"):
        expand(replay)
    with pytest.raises(ReplayError, match="engine version"):
        to_full(replay)
    problems = verify(replay)
    assert len(problems) == 1 and "not re-simulated under another engine version" in problems[0]
    path = tmp_path / "old.replay.json.gz"
    replays.save(replay, path)
    done = subprocess.run([sys.executable, "-m", "workers.replay", "view", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "never re-simulated" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "old.replay.html").exists()


def test_the_cli_writes_a_compact_replay_that_verifies_and_views(tmp_path):
    path = tmp_path / "m.replay.json.gz"
    played = subprocess.run([sys.executable, "-m", "workers.play", "dive", "builtin:heuristic", "builtin:random",
                             "--seed", "9", "--replay", str(path), "--json", *CLI_LIMITS],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["replay"] == {"file": str(path)}
    assert replays.load(path)["version"] == 2
    checked = subprocess.run([sys.executable, "-m", "workers.replay", "verify", str(path)], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and "format version 2" in checked.stdout
    tampered = _with_hash(replays.load(path), 2, "zzzz")
    replays.save(tampered, tmp_path / "bad.replay.json.gz")
    failed = subprocess.run([sys.executable, "-m", "workers.replay", "verify", str(tmp_path / "bad.replay.json.gz")],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and "step 2: hash mismatch" in failed.stdout
    viewed = subprocess.run([sys.executable, "-m", "workers.replay", "view", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert viewed.returncode == 0, viewed.stderr
    from workers.viewer import unpack_page_replay

    shown = unpack_page_replay(Path(viewed.stdout.strip()).read_text())
    assert shown["version"] == 1 and all("observations" in step and "full" in step for step in shown["steps"])


def test_the_full_command_writes_a_compact_replay_as_a_full_one_that_outlives_the_engine(played, tmp_path):
    compact_path, full_path = tmp_path / "c.replay.json.gz", tmp_path / "f.replay.json.gz"
    replays.save(played["divee"][0], compact_path)
    done = subprocess.run([sys.executable, "-m", "workers.replay", "full", str(compact_path), "--out", str(full_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    full = replays.load(full_path)
    assert full["version"] == 1 and _without_times(full) == _without_times(played["divee"][1])
    # Under another engine version the full replay is still shown as recorded; the compact one is not.
    older = {**full, "engine_version": "0-older"}
    assert expand(older) == older
    with pytest.raises(ReplayError):
        expand({**played["divee"][0], "engine_version": "0-older"})
    failed = subprocess.run([sys.executable, "-m", "workers.replay", "full", str(tmp_path / "missing.gz"), "--out",
                             str(full_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and "cannot read" in failed.stderr and "Traceback" not in failed.stderr
