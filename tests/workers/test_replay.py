"""Full (version 1) replays: compression, verification by re-simulation, tamper detection, the
verify CLI. The runner records compact replays only (tests/workers/test_replay_compact.py); version 1
is still read, verified and expanded: these tests read version 1 replays the runner recorded when it
still did (tests/fixtures/replays_v1)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.replay_support import v1_replay
from workers.replay import ReplayError, compress, decompress, expand, load, save, verify
from workers.runner import REPLAY_FORMAT, SeatSpec, run_match

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def replay():
    # Seat 0 (crasher.py) raised at its third decision: a crash, then the fallback's moves.
    replay = v1_replay("deep_sea_adventure-crasher")
    assert [fault["kind"] for fault in replay["faults"]] == ["crash"]
    return replay


def test_a_replay_holds_the_documented_fields(replay):
    assert replay["format"] == REPLAY_FORMAT and replay["version"] == 1
    assert {"game", "engine_version", "seed", "options", "num_players", "seats", "initial", "steps",
            "faults", "result"} <= set(replay)
    assert replay["seats"][0] == {"seat": 0, "bot": "crasher.py", "name": "crasher", "version": "1.0"}
    step = replay["steps"][0]
    assert {"step", "to_act", "actions", "ms", "by", "hash", "spectator", "observations"} <= set(step)
    assert len(step["observations"]) == 3
    assert any("faults" in step for step in replay["steps"])


def test_compression_round_trips_and_shrinks(replay):
    data = compress(replay)
    assert decompress(data) == json.loads(json.dumps(replay))
    assert len(data) < len(json.dumps(replay)) / 4


def test_a_recorded_replay_verifies_including_fallback_moves(replay):
    assert verify(decompress(compress(replay))) == []


def _other_legal_action(replay):
    from engines import get_game
    state = get_game(replay["game"]).new_state(replay["num_players"], replay["seed"], replay["options"])
    for number, step in enumerate(replay["steps"]):
        for index, seat in enumerate(step["to_act"]):
            others = [a for a in state.legal_actions(seat) if a != step["actions"][index]]
            if others:
                return number, index, others[0]
        state.apply(dict(zip(step["to_act"], step["actions"])))
    raise AssertionError("no step with a choice")


def test_a_tampered_action_fails_verification(replay):
    tampered = copy.deepcopy(replay)
    number, index, action = _other_legal_action(tampered)
    tampered["steps"][number]["actions"][index] = action
    assert any(f"step {number}" in problem for problem in verify(tampered))


@pytest.mark.parametrize("tamper", ["hash", "observation", "spectator", "ranks", "scores", "seed",
                                    "dropped_step", "fault_removed", "illegal_action", "fault_kind",
                                    "step_fault_removed"])
def test_any_tampering_fails_verification(replay, tamper):
    t = copy.deepcopy(replay)
    if tamper == "hash":
        t["steps"][5]["hash"] = "0" * 64
    elif tamper == "observation":
        t["steps"][2]["observations"][1] = {"forged": True}
    elif tamper == "spectator":
        t["steps"][2]["spectator"] = {"forged": True}
    elif tamper == "ranks":
        t["result"]["ranks"] = list(reversed(t["result"]["ranks"]))
    elif tamper == "scores":
        t["result"]["scores"][0] += 100
    elif tamper == "seed":
        t["seed"] += 1
    elif tamper == "dropped_step":
        del t["steps"][-1]
    elif tamper == "fault_removed":
        t["faults"] = []
    elif tamper == "illegal_action":
        t["steps"][0]["actions"][0] = {"move": "teleport"}
    elif tamper == "fault_kind":
        t["faults"][0]["kind"] = "timeout"
    elif tamper == "step_fault_removed":
        del next(step for step in t["steps"] if "faults" in step)["faults"]
    assert verify(t) != []


def test_the_verify_command_exits_zero_on_a_good_replay_and_nonzero_on_a_tampered_one(replay, tmp_path):
    good, bad = tmp_path / "good.replay.json.gz", tmp_path / "bad.replay.json.gz"
    save(replay, good)
    tampered = load(good)
    tampered["steps"][3]["hash"] = "f" * 64
    save(tampered, bad)
    command = [sys.executable, "-m", "workers.replay", "verify"]
    ok = subprocess.run(command + [str(good)], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and "OK" in ok.stdout
    failed = subprocess.run(command + [str(bad)], cwd=ROOT, capture_output=True, text=True)
    assert failed.returncode == 1 and "step 3: full_view hash mismatch" in failed.stdout


def test_the_verify_command_fails_cleanly_on_files_that_are_not_replays(replay, tmp_path):
    truncated = tmp_path / "truncated.replay.json.gz"
    truncated.write_bytes(compress(replay)[:200])
    not_json = tmp_path / "notes.txt"
    not_json.write_text("hello")
    a_list = tmp_path / "list.json"
    a_list.write_text("[1, 2]")
    for path in (truncated, not_json, a_list, tmp_path / "missing.replay.json.gz"):
        done = subprocess.run([sys.executable, "-m", "workers.replay", "verify", str(path)], cwd=ROOT,
                              capture_output=True, text=True)
        assert done.returncode == 1 and "Traceback" not in done.stderr, (path, done.stderr)
        assert str(path) in done.stdout


@pytest.mark.parametrize("replay_version", [1, 2])
def test_expand_adds_the_full_view_after_every_step_of_a_replay_that_re_simulates(replay_version):
    from engines import get_game

    seats = [SeatSpec(bot="builtin:random", name="a", version="1"),
             SeatSpec(bot="builtin:heuristic", name="b", version="1")]
    # The same match, as the runner records it now (2) and as it recorded it before (1).
    replay = (run_match("deep_dive", seats, 12).to_dict()["replay"] if replay_version == 2
              else v1_replay("deep_dive-builtins"))
    recorded = copy.deepcopy(replay)
    full = expand(replay)
    game = get_game("deep_dive")
    state = game.new_state(num_players=2, seed=12)
    assert full["initial"]["full"] == state.full_view()
    for step in full["steps"]:
        state.apply(dict(zip(step["to_act"], step["actions"])))
        assert step["full"] == state.full_view()
    assert full["steps"][-1]["full"] == full["final"]["full_view"]
    assert full["version"] == 1
    assert replay == recorded  # the replay given is left as it was


def test_expand_keeps_a_full_replay_of_another_engine_version_as_recorded():
    replay = copy.deepcopy(v1_replay("deep_dive-builtins"))
    replay["engine_version"] = "an older engine"
    assert expand(replay) == replay


@pytest.mark.parametrize("data, message", [
    ([1, 2], "not a Dive Arena replay"),
    ({"format": "something-else"}, "not a Dive Arena replay"),
    ({"format": "dive-arena-replay", "version": 99}, "version 99"),
    ({"format": "dive-arena-replay", "version": 1, "game": "chess"}, "unknown game 'chess'"),
])
def test_expand_refuses_what_is_not_a_readable_replay_with_a_message(data, message):
    with pytest.raises(ReplayError, match=message):
        expand(data)
