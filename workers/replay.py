"""Replays: compression on disk, expansion and verification by re-simulation, pages that draw
them (format: docs/replay-format.md).

    python -m workers.replay verify FILE [FILE ...]
    python -m workers.replay view FILE [--out PAGE.html]
    python -m workers.replay full FILE --out FULL.replay.json.gz
    python -m workers.replay luck FILE [--json]

``verify`` replays the recorded actions from the seed and options on the current engine,
checks every step's seats, actions and hashes (a full replay's views too), then the result
(ranks with faults applied). A compact replay recorded under another engine version is not
re-simulated: that is a problem by itself. It prints the problems and
exits 1 on any mismatch, 0 when every file re-simulates exactly. ``view`` writes one
self-contained HTML page (the replay viewer with the replay inside, no server needed) and prints
its path. ``full`` writes a compact replay as a full one (every view, no engine needed to show
it): do it before installing an arena whose engine changed. ``luck`` prints each seat's score,
its luck (workers.luck, docs/luck.md) and the rest, its play ("seat 2: 31 points; luck +6.5;
play 24.5"); with ``--json`` one object with those lists, the setup's luck and every step's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import zlib

from engines import IllegalAction, get_game
from workers.luck import luck_lines, luck_report
from workers.protocol import observation_text
from workers.runner import (FAULT_KINDS, REPLAY_FORMAT, REPLAY_VERSIONS, STEP_HASH_CHARS, ranks_with_faults,
                            state_hash, step_hash)

FULL_VERSION = 1
COMPACT_VERSION = 2

_MAX_PROBLEMS = 20


def compress(replay: dict) -> bytes:
    """The replay as gzip-compressed canonical JSON (what goes on disk)."""
    text = json.dumps(replay, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def decompress(data: bytes) -> dict:
    """The replay back from :func:`compress` output (plain JSON is accepted too)."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data.decode("utf-8"))


def save(replay: dict, path) -> None:
    """Write a compressed replay to ``path``."""
    with open(path, "wb") as out:
        out.write(compress(replay))


def load(path) -> dict:
    """Read a replay written by :func:`save`."""
    with open(path, "rb") as src:
        return decompress(src.read())


def unreadable_reason(exc: Exception) -> str:
    """Why :func:`load` failed, in words: the file, or what it holds instead of a replay."""
    if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
        return f"cannot read: {exc.strerror or exc}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not a replay: not JSON ({exc})"
    if isinstance(exc, UnicodeDecodeError):
        return "not a replay: not UTF-8 text"
    if isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
        return f"not a replay: a damaged or truncated gzip file ({exc})"
    return f"cannot read: {exc}"


class ReplayError(ValueError):
    """The data is not a replay this version of the arena can read (the message says why)."""


def check_readable(replay) -> None:
    """Raise :class:`ReplayError` unless ``replay`` is a replay of a known format, version and game."""
    if not isinstance(replay, dict) or replay.get("format") != REPLAY_FORMAT:
        raise ReplayError("this is not a Dive Arena replay")
    if replay.get("version") not in REPLAY_VERSIONS:
        raise ReplayError(f"replay format version {replay.get('version')!r} is not one this arena reads "
                          f"(it reads {' and '.join(map(str, REPLAY_VERSIONS))})")
    try:
        get_game(replay.get("game"))
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


def compact_steps(replay: dict) -> list[dict]:
    """A compact replay's steps, one ``{"to_act", "actions", "ms", "by", "hash"}`` per step (``by``
    filled in: "bot" where the replay leaves it out). Raises :class:`ReplayError` on columns that
    do not line up."""
    columns = replay["steps"]
    if not isinstance(columns, dict):
        raise ReplayError("a compact replay's steps are columns (an object), not a list")
    count = len(columns["to_act"])
    width = _step_hash_chars(replay)
    hashes = columns["hash"]
    by = columns.get("by") or [None] * count
    if not (len(columns["actions"]) == len(columns["ms"]) == len(by) == count) or len(hashes) != width * count:
        raise ReplayError(f"the step columns disagree on the number of steps ({count} to act, "
                          f"{len(columns['actions'])} actions, {len(columns['ms'])} times, {len(by)} who-played entries, "
                          f"{len(hashes) / width:g} hashes)")
    return [{"to_act": columns["to_act"][k], "actions": columns["actions"][k], "ms": columns["ms"][k],
             "by": by[k] or ["bot"] * len(columns["to_act"][k]), "hash": hashes[k * width:(k + 1) * width]}
            for k in range(count)]


def step_count(replay: dict) -> int:
    """How many steps a replay (full or compact) records."""
    steps = replay["steps"]
    return len(steps["to_act"]) if isinstance(steps, dict) else len(steps)


def _step_hash_chars(replay: dict) -> int:
    width = replay.get("step_hash_chars", STEP_HASH_CHARS)
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 64:
        raise ReplayError(f"step_hash_chars {width!r} is not a number of hex digits (1-64)")
    return width


def _expand_compact(replay: dict) -> dict:
    game = get_game(replay["game"])
    state = game.new_state(num_players=replay["num_players"], seed=replay["seed"], options=replay["options"])
    previous = _snapshot(state)
    if previous["hash"] != replay["initial"]["hash"]:
        raise ReplayError("the initial position differs from the recorded one (hash)")
    initial = previous
    faults = replay.get("faults", [])
    width = _step_hash_chars(replay)
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
        actions = [_action(state, seat, recorded, number) for seat, recorded in zip(to_act, step["actions"])]
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


def _action(state, seat: int, recorded, number: int) -> dict:
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
            joint = {seat: _action(state, seat, recorded, number)
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
    """A compact replay converted to a stored full (version 1) replay, as the runner records one
    with ``replay_version=1``: every view of every step, no longer tied to the engine. A full
    replay comes back unchanged."""
    check_readable(replay)
    if replay["version"] == FULL_VERSION:
        return replay
    full = expand_compact(replay)
    strip = lambda snapshot: {key: value for key, value in snapshot.items() if key != "full"}  # noqa: E731
    return {**full, "initial": strip(full["initial"]), "steps": [strip(step) for step in full["steps"]],
            "final": {"full_view": full["final"]["full_view"]}}


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
    faulted_at = {}
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
    width = _step_hash_chars(replay)
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
            actions = [_action(state, seat, recorded, number) for seat, recorded in zip(to_act, step["actions"])]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.replay", description="Dive Arena replays.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("verify", help="re-simulate replays and check every step and the result")
    check.add_argument("files", nargs="+", metavar="FILE")
    view = commands.add_parser("view", help="write one self-contained HTML page that draws a replay")
    view.add_argument("file", metavar="FILE")
    view.add_argument("--out", metavar="PAGE", help="the page to write (default: FILE with .html)")
    full = commands.add_parser("full", help="write a compact replay as a full (version 1) replay, which "
                                            "stays readable after the engine changes")
    full.add_argument("file", metavar="FILE")
    full.add_argument("--out", metavar="FILE", required=True, help="the full replay to write")
    luck = commands.add_parser("luck", help="each seat's luck and play (score - luck) in a finished replay")
    luck.add_argument("file", metavar="FILE")
    luck.add_argument("--json", action="store_true", help="print one JSON object (per-step luck included)")
    args = parser.parse_args(argv)
    if args.command == "luck":
        return _luck(args.file, args.json)
    if args.command == "view":
        return _view(args.file, args.out)
    if args.command == "full":
        return _full(args.file, args.out)
    failed = 0
    for path in args.files:
        try:
            replay = load(path)
        except (OSError, ValueError, EOFError, zlib.error) as exc:
            print(f"{path}: {unreadable_reason(exc)}")
            failed += 1
            continue
        problems = verify(replay)
        if problems:
            failed += 1
            print(f"{path}: FAILED ({len(problems)} problem(s))")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"{path}: OK ({replay['game']}, seed {replay['seed']}, {step_count(replay)} steps, "
                  f"format version {replay['version']})")
    return 1 if failed else 0


def default_page_path(path: str) -> str:
    """Where ``view`` writes the page of ``path`` without ``--out``: beside it, ending in .html."""
    name = os.path.basename(path)
    for suffix in (".json.gz", ".gz", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return os.path.join(os.path.dirname(path), name + ".html")


def _load_or_say_why(path: str) -> dict | None:
    """The replay in ``path``, or None after printing why it cannot be read."""
    try:
        return load(path)
    except (OSError, ValueError, EOFError, zlib.error) as exc:
        print(f"{path}: {unreadable_reason(exc)}", file=sys.stderr)
        return None


def _full(path: str, out: str) -> int:
    replay = _load_or_say_why(path)
    if replay is None:
        return 1
    try:
        converted = to_full(replay)
    except ReplayError as exc:
        print(f"{path}: cannot be converted: {exc}", file=sys.stderr)
        return 1
    try:
        save(converted, out)
    except OSError as exc:
        print(f"{out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(os.path.abspath(out))
    return 0


def _luck(path: str, as_json: bool) -> int:
    replay = _load_or_say_why(path)
    if replay is None:
        return 1
    try:
        luck = luck_report(replay["game"], replay["num_players"], replay["seed"], replay["options"],
                           joint_actions(replay))
    except ValueError as exc:  # ReplayError, IllegalAction, a game that is not over
        print(f"{path}: cannot measure luck: {exc}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(luck))
    else:
        print(f"{path}: {luck['game']}, seed {luck['seed']}, {len(luck['steps'])} steps")
        for line in luck_lines(luck):
            print("  " + line)
    return 0


def _view(path: str, out: str | None) -> int:
    from workers.viewer import standalone_page

    replay = _load_or_say_why(path)
    if replay is None:
        return 1
    try:
        full = expand(replay)
    except ReplayError as exc:
        print(f"{path}: cannot be shown: {exc}", file=sys.stderr)
        return 1
    out = out or default_page_path(path)
    if os.path.isdir(out):
        print(f"--out {out}: is a directory, give a file name", file=sys.stderr)
        return 2
    try:
        with open(out, "w", encoding="utf-8") as page:
            page.write(standalone_page(full))
    except OSError as exc:
        print(f"{out}: cannot write: {exc}", file=sys.stderr)
        return 1
    print(os.path.abspath(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
