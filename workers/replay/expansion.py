"""Replays in full form, as viewers read them: a compact replay re-simulated on the engine that
recorded it (its hashes checked at every step), a full one given the ``full_view`` after every step
when it still re-simulates (docs/replay-format.md, "Full form"); and the conversion of a compact
replay to a stored full one (``to_full``), which no longer needs the engine.
"""

from __future__ import annotations

from engines import IllegalAction, get_game
from workers.protocol import observation_text
from workers.replay.codec import (COMPACT_VERSION, FULL_VERSION, REPLAY_FORMAT, REPLAY_VERSIONS, ReplayError,
                                  compact_steps, state_hash, step_hash, step_hash_chars)


def check_readable(replay) -> None:
    """Raise :class:`ReplayError` unless ``replay`` is a replay of a known format, version and game."""
    if not isinstance(replay, dict) or replay.get("format") != REPLAY_FORMAT:
        raise ReplayError("this is not a Dive Arena replay")
    if replay.get("version") not in REPLAY_VERSIONS:
        raise ReplayError(f"replay format version {replay.get('version')!r} is not one this arena reads "
                          f"(it reads {' and '.join(map(str, REPLAY_VERSIONS))})")
    try:
        get_game(replay["game"])
    except (KeyError, TypeError, ValueError):
        raise ReplayError(f"unknown game {replay.get('game')!r}") from None


def expand(replay: dict) -> dict:
    """The replay in full form, as viewers read it (docs/replay-format.md, "Full form").

    Every snapshot carries ``spectator`` and ``observations``; when the replay re-simulates on
    the installed engine (same engine version, every step legal) every snapshot also carries
    ``full``, the ``full_view()`` after that point, so a finished match can be shown with
    everything revealed at every step, and ``final`` carries ``result``, the engine's own
    ``result()`` with its extras (a solo title, tie-break details). Otherwise a full (version 1)
    replay comes back as recorded.

    A compact (version 2) replay is re-simulated from its seed and actions; its hashes must
    match at every step. It is never re-simulated under an engine version other than the one
    that recorded it: :class:`ReplayError` then (convert stored compact replays to the full form
    before an engine changes: ``manage.py replays_to_full``).
    """
    check_readable(replay)
    if replay["version"] == COMPACT_VERSION:
        return expand_compact(replay)
    game = get_game(replay["game"])
    if str(replay.get("engine_version")) != str(game.version):
        return replay
    try:
        state = game.new_state(num_players=replay["num_players"], seed=replay["seed"],
                               options=replay["options"])
        snapshots = [{**replay["initial"], "full": state.full_view()}]
        for step in replay["steps"]:
            state.apply(dict(zip(step["to_act"], step["actions"])))
            snapshots.append({**step, "full": state.full_view()})
        result = state.result() if state.is_terminal() else None
    except (IllegalAction, KeyError, TypeError, ValueError, IndexError):
        return replay
    final = dict(replay.get("final") or {})
    if result is not None:
        final["result"] = result
    return {**replay, "initial": snapshots[0], "steps": snapshots[1:], "final": final}


def check_engine_version(replay: dict) -> None:
    """Raise :class:`ReplayError` unless the installed engine is the one that recorded ``replay``."""
    installed = get_game(replay["game"]).version
    if str(replay.get("engine_version")) != str(installed):
        raise ReplayError(
            f"this compact replay was recorded by {replay['game']} engine version {replay.get('engine_version')!r} "
            f"and the installed engine is version {installed!r}: it is never re-simulated under another "
            "version (convert compact replays to the full form before an engine changes: "
            "manage.py replays_to_full)")


def _snapshot(state) -> dict:
    full = state.full_view()
    return {"hash": state_hash(full), "spectator": state.spectator_view(),
            "observations": [state.observation(seat) for seat in range(state.num_players)], "full": full}


def expand_compact(replay: dict) -> dict:
    """A compact (version 2) replay in full form, re-simulated on the engine that recorded it.

    Raises :class:`ReplayError` when the engine version differs, or when the re-simulation does
    not give what was recorded (seats to act, a legal action, a step's hash, the final hash):
    views are only served when they are the ones the match had.
    """
    check_readable(replay)
    if replay.get("version") != COMPACT_VERSION:
        raise ReplayError(f"not a compact replay (format version {replay.get('version')!r})")
    check_engine_version(replay)
    try:
        return _expand_compact(replay)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"malformed compact replay: {type(exc).__name__}: {exc}") from None


def _expand_compact(replay: dict) -> dict:
    game = get_game(replay["game"])
    state = game.new_state(num_players=replay["num_players"], seed=replay["seed"], options=replay["options"])
    previous = _snapshot(state)
    if previous["hash"] != replay["initial"]["hash"]:
        raise ReplayError("the initial position differs from the recorded one (hash)")
    initial = previous
    faults = replay.get("faults", [])
    width = step_hash_chars(replay)
    steps = []
    for number, step in enumerate(compact_steps(replay)):
        to_act = state.to_act()
        if to_act != step["to_act"]:
            raise ReplayError(f"step {number}: seats to act are {to_act}, the replay says {step['to_act']}")
        if step["hash"] != step_hash([observation_text(previous["observations"][seat]) for seat in to_act], width):
            raise ReplayError(f"step {number}: what the seats were shown differs from the recorded hash")
        if not len(step["actions"]) == len(step["ms"]) == len(step["by"]) == len(to_act):
            raise ReplayError(f"step {number}: {len(step['actions'])} actions, {len(step['ms'])} times and "
                              f"{len(step['by'])} who-played entries for {len(to_act)} seats")
        actions = [recorded_action(state, seat, recorded, number) for seat, recorded in zip(to_act, step["actions"])]
        try:
            state.apply(dict(zip(to_act, actions)))
        except IllegalAction as exc:
            raise ReplayError(f"step {number}: illegal action: {exc}") from None
        record = {"step": number, "to_act": list(to_act), "actions": actions, "ms": list(step["ms"]),
                  "by": list(step["by"])}
        step_faults = [fault for fault in faults if fault["step"] == number]
        if step_faults:
            record["faults"] = step_faults
        previous = _snapshot(state)
        steps.append({**record, **previous})
    if not state.is_terminal():
        raise ReplayError(f"the game is not over after the {len(steps)} recorded steps")
    if previous["hash"] != replay["final"]["hash"]:
        raise ReplayError("the final position differs from the recorded one (hash)")
    full = {key: value for key, value in replay.items()
            if key not in ("initial", "steps", "final", "step_hash_chars")}
    return {**full, "version": FULL_VERSION, "initial": initial, "steps": steps,
            "final": {"full_view": previous["full"], "result": state.result()}}


def recorded_action(state, seat: int, recorded, number: int) -> dict:
    """The action a compact step names: an index into the seat's legal actions, or the action."""
    legal = state.legal_actions(seat)
    if isinstance(recorded, bool) or not isinstance(recorded, (int, dict)):
        raise ReplayError(f"step {number}: seat {seat}'s action {recorded!r} is neither an index nor an action")
    if isinstance(recorded, dict):
        return recorded
    if not 0 <= recorded < len(legal):
        raise ReplayError(f"step {number}: seat {seat}'s action index {recorded} is outside its "
                          f"{len(legal)} legal actions")
    return legal[recorded]


def joint_actions(replay: dict) -> list[dict]:
    """The ``{seat: action}`` every step applied, as ``state.apply`` took it (a compact replay's
    action indexes are turned into actions by re-simulating it on its own engine version)."""
    check_readable(replay)
    if replay["version"] != COMPACT_VERSION:
        return [dict(zip(step["to_act"], step["actions"])) for step in replay["steps"]]
    check_engine_version(replay)
    try:
        state = get_game(replay["game"]).new_state(num_players=replay["num_players"], seed=replay["seed"],
                                                   options=replay["options"])
        joints = []
        for number, step in enumerate(compact_steps(replay)):
            joint = {seat: recorded_action(state, seat, recorded, number)
                     for seat, recorded in zip(step["to_act"], step["actions"])}
            state.apply(joint)
            joints.append(joint)
    except IllegalAction as exc:
        raise ReplayError(f"illegal action on re-simulation: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"malformed compact replay: {type(exc).__name__}: {exc}") from None
    return joints


def to_full(replay: dict) -> dict:
    """A compact replay converted to a stored full (version 1) replay, as the runner recorded one
    before it recorded compact replays only: every view of every step, no longer tied to the engine. A full
    replay comes back unchanged."""
    check_readable(replay)
    if replay["version"] == FULL_VERSION:
        return replay
    full = expand_compact(replay)

    def strip(snapshot: dict) -> dict:
        return {key: value for key, value in snapshot.items() if key != "full"}

    return {**full, "initial": strip(full["initial"]), "steps": [strip(step) for step in full["steps"]],
            "final": {"full_view": full["final"]["full_view"]}}
