"""The replay codec, both ways (format: docs/replay-format.md): what the runner writes while a
match is played (:class:`CompactRecorder`, :func:`encode`) and what readers take back from it
(:func:`compact_steps`, :func:`step_count`), the hashes both sides compute, and the bytes on disk.

Nothing here runs an engine: expansion and verification by re-simulation are
:mod:`workers.replay.expansion` and :mod:`workers.replay.verification`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib

from engines import ranks_from_scores

REPLAY_FORMAT = "dive-arena-replay"
# Version 2 is compact (actions, timing, faults and hashes; views recomputed on demand) and is the
# only one the runner records. Version 1, every view of every step, is still read: older replays
# and replays converted before an engine change (``to_full``) are in it.
FULL_VERSION = 1
COMPACT_VERSION = 2
REPLAY_VERSION = COMPACT_VERSION
REPLAY_VERSIONS = (FULL_VERSION, COMPACT_VERSION)
# Hex digits kept of each step's hash in a compact replay: 16 bits. A re-simulation that diverges
# is caught at the step it diverges but for 1 chance in 65,536, and a divergence stays visible, so
# each later step cuts those odds as much again; the first and the last positions carry the whole
# sha256. Half the bytes of a compact replay are these hashes: more digits would cost the storage
# budget (docs/benchmarks.md) for no divergence that could slip through in practice.
STEP_HASH_CHARS = 4
FAULT_KINDS = ("init_timeout", "timeout", "crash", "protocol", "illegal", "memory")


class ReplayError(ValueError):
    """The data is not a replay this version of the arena can read (the message says why)."""


# --- hashes and indexes (the same on both sides) ---------------------------------------------

def state_hash(full_view: dict) -> str:
    """The replay hash of a position: sha256 of the canonical JSON of ``full_view()``."""
    canonical = json.dumps(full_view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def step_hash(observation_texts: list[str], chars: int = STEP_HASH_CHARS) -> str:
    """A compact replay's hash of one step: what the deciding seats were sent, each observation's
    JSON text as the ``act`` message carries it (``protocol.observation_text``), in ``to_act``
    order, one per line; sha256, first ``chars`` hex digits.

    The observations, not the full view: the runner serializes them anyway (the bots are sent
    them), where a ``full_view()`` per step costs many times the engine's own step. Whatever
    diverges and is not visible to a deciding seat yet is caught where it becomes visible, and
    at the latest by the final position's full hash.
    """
    return hashlib.sha256("\n".join(observation_texts).encode("utf-8")).hexdigest()[:chars]


def action_index(legal: list, action) -> int:
    """The index of ``action`` in ``legal`` (the engine's own object, else an equal one)."""
    for index, candidate in enumerate(legal):
        if candidate is action:
            return index
    return legal.index(action)


def ranks_with_faults(engine_ranks: list[int], faulted: set[int]) -> list[int]:
    """Engine ranks with every faulted seat placed below every seat that did not fault."""
    keys = [(seat in faulted, rank) for seat, rank in enumerate(engine_ranks)]
    return ranks_from_scores(keys, higher_is_better=False)


# --- writing -----------------------------------------------------------------------------------

class CompactRecorder:
    """A compact replay's steps as they are played, one list (or string) per field: columns
    compress far better than one object per step, whose hash digits break up the repeated
    structure."""

    def __init__(self) -> None:
        self.to_act: list[list[int]] = []
        self.actions: list[list[int]] = []
        self.ms: list[list[float | None]] = []
        self.by: list[list[str] | None] = []
        self.hashes: list[str] = []

    def record(self, to_act: list[int], chosen: dict, legal: dict, texts: dict) -> None:
        """One step, before it is applied: ``chosen[seat] = (action, ms or None, "bot"|"fallback")``,
        ``legal[seat]`` the seat's legal actions, ``texts[seat]`` the observation text it was sent."""
        self.to_act.append(list(to_act))
        self.actions.append([action_index(legal[i], chosen[i][0]) for i in to_act])
        self.ms.append([None if chosen[i][1] is None else round(chosen[i][1], 1) for i in to_act])
        by = [chosen[i][2] for i in to_act]
        self.by.append(by if "fallback" in by else None)
        self.hashes.append(step_hash([texts[i] for i in to_act]))

    def steps(self) -> dict:
        """The compact replay's ``steps`` (docs/replay-format.md, version 2)."""
        steps: dict = {"to_act": self.to_act, "actions": self.actions, "ms": self.ms}
        if any(self.by):
            steps["by"] = self.by
        steps["hash"] = "".join(self.hashes)
        return steps


def encode(*, game, seed: int, options: dict, seats: list[dict], limits: dict, initial_hash: str,
           steps: dict, faults: list[dict], scores: list, engine_ranks: list, ranks: list,
           final_hash: str) -> dict:
    """A compact (version 2) replay, its fields in the documented order (``format``, ``version``,
    ``game``, ``engine_version`` first: a reader tells them from the first bytes)."""
    return {
        "format": REPLAY_FORMAT, "version": COMPACT_VERSION,
        "game": game.id, "engine_version": game.version, "seed": seed,
        "options": options, "num_players": len(seats), "seats": seats, "limits": limits,
        "initial": {"hash": initial_hash},
        "steps": steps,
        "faults": faults,
        "result": {"scores": scores, "engine_ranks": engine_ranks, "ranks": ranks},
        "final": {"hash": final_hash},
        "step_hash_chars": STEP_HASH_CHARS,
    }


# --- reading -----------------------------------------------------------------------------------

def step_hash_chars(replay: dict) -> int:
    """The hex digits of each step's hash in a compact replay (checked)."""
    width = replay.get("step_hash_chars", STEP_HASH_CHARS)
    if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= 64:
        raise ReplayError(f"step_hash_chars {width!r} is not a number of hex digits (1-64)")
    return width


def compact_steps(replay: dict) -> list[dict]:
    """A compact replay's steps, one ``{"to_act", "actions", "ms", "by", "hash"}`` per step (``by``
    filled in: "bot" where the replay leaves it out). Raises :class:`ReplayError` on columns that
    do not line up."""
    columns = replay["steps"]
    if not isinstance(columns, dict):
        raise ReplayError("a compact replay's steps are columns (an object), not a list")
    count = len(columns["to_act"])
    width = step_hash_chars(replay)
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


# --- bytes on disk -----------------------------------------------------------------------------

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
