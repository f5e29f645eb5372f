"""Turning match rows into the runner's input and its output into what is stored.

Shared by the match and smoke-test tasks: a seat spec per bot version (archives come from the
database and are written to a private temporary folder, so a worker needs only the database
and broker URLs) and the public form of a replay. (The worker's name as recorded on a match is
``arena/jobs/worker_names.py``.)
"""

from __future__ import annotations

from pathlib import Path

from arena.matches.replay_store import pack
from workers.runner import SeatSpec
from workers.toolchains import BUILDS as BUILT_LANGUAGES
from workers.toolchains import ENTRY_FILES


def seat_spec(version, folder: Path):
    """The runner's SeatSpec for a BotVersion: ``builtin:NAME`` or its archive written to ``folder``."""
    bot = version.bot
    if version.kind == "builtin":
        return SeatSpec(bot=f"builtin:{bot.builtin}", name=bot.name, version=f"v{version.number}")
    if version.language in BUILT_LANGUAGES:
        # A compiled bot plays its built artifact (a zip of the build's output), never its sources.
        archive, suffix = bytes(version.artifact), ".zip"
        if not archive and version.build_status != "ok":
            raise ValueError(f"{bot.name} v{version.number} ({version.language}) has not been built")
    else:
        archive = bytes(version.archive)
        suffix = ".zip" if version.kind == "zip" else Path(ENTRY_FILES[version.language]).suffix
    if not archive:
        # Retention empties only archives that can never play again (arena/runs/retention.py).
        raise ValueError(f"the archive of {bot.name} v{version.number} was pruned by retention")
    path = folder / f"{bot.pk}-{version.number}-{version.sha256[:12]}{suffix}"
    path.write_bytes(archive)
    return SeatSpec(bot=str(path), name=bot.name, version=f"v{version.number}", language=version.language)


def public_outcome(outcome: dict) -> dict:
    """The runner's outcome as anyone may read it: logs are private to owners and staff, and
    fault messages carry stderr lines, so those stay on the seats. A smoke test stores it (it has
    no seat rows); a match does not: its seats and its own row hold all of it."""
    return {
        "game": outcome.get("game"),
        "seed": outcome.get("seed"),
        "options": outcome.get("options"),
        "scores": outcome.get("scores"),
        "ranks": outcome.get("ranks"),
        "faults": [{k: f.get(k) for k in ("seat", "kind", "step")} for f in outcome.get("faults", [])],
        "timing": outcome.get("timing", []),
    }


def public_replay(replay: dict) -> dict:
    """The replay as anyone may download it: each fault keeps its kind, step and the arena's
    first line of why, without the lines of the bot's stderr the runner appends (those are
    private to the owner and staff, who read them on the seat)."""
    def redact(fault: dict) -> dict:
        return {**fault, "message": str(fault.get("message") or "").split("\n", 1)[0]}

    public = dict(replay)
    public["faults"] = [redact(f) for f in replay.get("faults", [])]
    if isinstance(replay.get("steps"), list):
        # A full (version 1) replay repeats each fault at its step; a compact one lists them once.
        public["steps"] = [{**step, "faults": [redact(f) for f in step["faults"]]} if step.get("faults") else step
                           for step in replay["steps"]]
    return public


def compressed_public_replay(replay: dict | None) -> bytes | None:
    """The public replay, compressed as stored; None when the runner produced none."""
    if replay is None:
        return None

    return pack(public_replay(replay))
