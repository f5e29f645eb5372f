"""Verification by re-simulation: ``python -m workers.replay verify`` replays the recorded actions
from the seed and options on the installed engine and checks every step's seats, actions and
hashes (a full replay's views too), then the result (ranks with faults applied). A compact replay
recorded under another engine version is not re-simulated: that is a problem by itself.
"""

from __future__ import annotations

import json

from engines import IllegalAction, get_game
from workers.protocol import observation_text
from workers.replay.codec import (COMPACT_VERSION, FAULT_KINDS, REPLAY_FORMAT, REPLAY_VERSIONS, ReplayError,
                                  compact_steps, ranks_with_faults, state_hash, step_hash, step_hash_chars)
from workers.replay.expansion import recorded_action

_MAX_PROBLEMS = 20


def verify(replay: dict) -> list[str]:
    """Problems found re-simulating ``replay``; empty when it re-simulates exactly."""
    problems: list[str] = []
    if not isinstance(replay, dict):
        return [f"not a replay: a JSON {type(replay).__name__}, not an object"]
    try:
        _verify(replay, problems)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        problems.append(f"malformed replay: {type(exc).__name__}: {exc}")
    return problems[:_MAX_PROBLEMS]


def _verify(replay: dict, problems: list[str]) -> None:
    if replay.get("format") != REPLAY_FORMAT:
        problems.append(f"not a {REPLAY_FORMAT} file (format={replay.get('format')!r})")
        return
    if replay.get("version") not in REPLAY_VERSIONS:
        problems.append(f"replay version {replay.get('version')!r}; this verifier reads "
                        f"{' and '.join(map(str, REPLAY_VERSIONS))}")
        return
    if replay["version"] == COMPACT_VERSION:
        _verify_compact(replay, problems)
        return
    game = get_game(replay["game"])
    if str(replay.get("engine_version")) != str(game.version):
        problems.append(f"engine version {replay.get('engine_version')!r} recorded, "
                        f"{game.version!r} installed: results may differ")
    state = game.new_state(num_players=replay["num_players"], seed=replay["seed"],
                           options=replay["options"])
    if state.options != replay["options"]:
        problems.append("options differ from the engine's resolved options")
    _check_snapshot(state, replay["initial"], "initial position", problems)
    faulted_at = _check_faults(replay, problems)
    for expected_step, step in enumerate(replay["steps"]):
        where = f"step {expected_step}"
        # A step lists exactly the faults of that step, as the top-level list has them.
        listed = [fault for fault in replay["faults"] if fault["step"] == expected_step]
        if sorted(step.get("faults", []), key=lambda f: f["seat"]) != listed:
            problems.append(f"{where}: its faults {_kinds(step.get('faults', []))} differ from the "
                            f"match's faults of that step {_kinds(listed)}")
        if step.get("step") != expected_step:
            problems.append(f"{where}: numbered {step.get('step')!r}")
        # A faulted seat is played by the fallback from its fault on, and only then.
        expected_by = ["fallback" if faulted_at.get(seat, expected_step + 1) <= expected_step else "bot"
                       for seat in step["to_act"]]
        if step.get("by", expected_by) != expected_by:
            problems.append(f"{where}: who played {step.get('by')} disagrees with the faults")
        to_act = state.to_act()
        if to_act != step["to_act"]:
            problems.append(f"{where}: seats to act are {to_act}, replay says {step['to_act']}")
            return
        if len(step["actions"]) != len(to_act):
            problems.append(f"{where}: {len(step['actions'])} actions for {len(to_act)} seats")
            return
        try:
            state.apply(dict(zip(to_act, step["actions"])))
        except IllegalAction as exc:
            problems.append(f"{where}: illegal action: {exc}")
            return
        _check_snapshot(state, step, where, problems)
        if len(problems) >= _MAX_PROBLEMS:
            return
    if not state.is_terminal():
        problems.append(f"the game is not over after the {len(replay['steps'])} recorded steps")
        return
    _check_result(state, replay, problems)
    final = replay.get("final", {}).get("full_view")
    if final is not None and state_hash(final) != state_hash(state.full_view()):
        problems.append("the final full view differs from the re-simulated one")


def _check_faults(replay: dict, problems: list[str]) -> dict:
    """Check the fault kinds; the step each faulted seat's fault is at."""
    faulted_at: dict[int, int] = {}
    for fault in replay["faults"]:
        faulted_at.setdefault(fault["seat"], fault["step"])
        if fault["kind"] not in FAULT_KINDS:
            problems.append(f"seat {fault['seat']}: unknown fault kind {fault['kind']!r}")
    return faulted_at


def _check_result(state, replay: dict, problems: list[str]) -> None:
    result = state.result()
    recorded = replay["result"]
    if list(result["scores"]) != list(recorded["scores"]):
        problems.append(f"scores are {result['scores']}, replay says {recorded['scores']}")
    if list(result["ranks"]) != list(recorded["engine_ranks"]):
        problems.append(f"engine ranks are {result['ranks']}, replay says {recorded['engine_ranks']}")
    faulted = {fault["seat"] for fault in replay["faults"]}
    ranks = ranks_with_faults(list(result["ranks"]), faulted)
    if ranks != list(recorded["ranks"]):
        problems.append(f"ranks with faults applied are {ranks}, replay says {recorded['ranks']}")


def _verify_compact(replay: dict, problems: list[str]) -> None:
    game = get_game(replay["game"])
    if str(replay.get("engine_version")) != str(game.version):
        # Pinned: a compact replay is only ever re-simulated by the engine version that recorded it.
        problems.append(f"engine version {replay.get('engine_version')!r} recorded, {game.version!r} "
                        "installed: a compact replay is not re-simulated under another engine version")
        return
    state = game.new_state(num_players=replay["num_players"], seed=replay["seed"], options=replay["options"])
    if state.options != replay["options"]:
        problems.append("options differ from the engine's resolved options")
    if state_hash(state.full_view()) != replay["initial"]["hash"]:
        problems.append("initial position: full_view hash mismatch")
    faulted_at = _check_faults(replay, problems)
    width = step_hash_chars(replay)
    try:
        steps = compact_steps(replay)
    except ReplayError as exc:
        problems.append(str(exc))
        return
    for fault in replay["faults"]:
        if not 0 <= fault["step"] <= len(steps):
            problems.append(f"seat {fault['seat']}: fault at step {fault['step']}, outside the {len(steps)} steps")
    for number, step in enumerate(steps):
        where = f"step {number}"
        to_act = state.to_act()
        if to_act != step["to_act"]:
            problems.append(f"{where}: seats to act are {to_act}, replay says {step['to_act']}")
            return
        if step_hash([observation_text(state.observation(seat)) for seat in to_act], width) != step["hash"]:
            problems.append(f"{where}: hash mismatch (what the seats to act were shown differs)")
        expected_by = ["fallback" if faulted_at.get(seat, number + 1) <= number else "bot" for seat in to_act]
        if step["by"] != expected_by:
            problems.append(f"{where}: who played {step['by']} disagrees with the faults")
        if len(step["actions"]) != len(to_act) or len(step["ms"]) != len(to_act):
            problems.append(f"{where}: {len(step['actions'])} actions and {len(step['ms'])} times "
                            f"for {len(to_act)} seats")
            return
        try:
            actions = [recorded_action(state, seat, recorded, number) for seat, recorded in zip(to_act, step["actions"])]
            state.apply(dict(zip(to_act, actions)))
        except (ReplayError, IllegalAction) as exc:
            problems.append(f"{where}: illegal action: {exc}")
            return
        if len(problems) >= _MAX_PROBLEMS:
            return
    if not state.is_terminal():
        problems.append(f"the game is not over after the {len(steps)} recorded steps")
        return
    if state_hash(state.full_view()) != replay["final"]["hash"]:
        problems.append("final position: full_view hash mismatch")
    _check_result(state, replay, problems)


def _check_snapshot(state, recorded: dict, where: str, problems: list[str]) -> None:
    if state_hash(state.full_view()) != recorded.get("hash"):
        problems.append(f"{where}: full_view hash mismatch")
    if "spectator" in recorded and _canon(state.spectator_view()) != _canon(recorded["spectator"]):
        problems.append(f"{where}: spectator view differs")
    if "observations" in recorded:
        for seat, observation in enumerate(recorded["observations"]):
            if _canon(state.observation(seat)) != _canon(observation):
                problems.append(f"{where}: observation of seat {seat} differs")


def _kinds(faults: list) -> list:
    return [(fault.get("seat"), fault.get("kind")) for fault in faults]


def _canon(value) -> str:
    # Through JSON first: a recorded view has been through it (tuples became lists, keys strings).
    return json.dumps(json.loads(json.dumps(value)), sort_keys=True, separators=(",", ":"))
