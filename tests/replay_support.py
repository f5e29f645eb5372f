"""Replays for the viewer tests, generated in the test from a seed (never checked in), and the
version 1 (full) replays the runner recorded before it recorded compact ones only (``v1_replay``).

``play_replay`` runs the local CLI, ``python -m workers.play GAME BOT ... --seed N --replay FILE``,
as a bot author would; ``record_match`` stores a replay as a finished challenge match whose seats
are bots of the named users, the way a worker records one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.workers.conftest import CLI_LIMITS, write_bot
from workers import replay as replays

ROOT = Path(__file__).resolve().parents[1]
V1_FIXTURES = ROOT / "tests" / "fixtures" / "replays_v1"

# A bot that plays the first legal action and, at its third decision, answers an action that
# is not legal: the arena faults it (kind "illegal") and the built-in fallback plays on.
FAULTY_BOT = """
import arena_bot
calls = []
def act(observation, legal_actions, rng):
    calls.append(1)
    return {"type": "cheat"} if len(calls) == 3 else 0
arena_bot.run(act)
"""

# Per game: the seats of the generated match (seat 1 faults) and its seed.
GAME_SEATS = {
    "deep_sea_adventure": ["builtin:heuristic", "FAULTY", "builtin:random"],
    "divee": ["builtin:heuristic", "FAULTY", "builtin:random"],
    "dive_diver_die": ["builtin:heuristic", "FAULTY", "builtin:random"],
    "deep_dive": ["builtin:heuristic", "FAULTY", "builtin:random"],
    "dive": ["builtin:heuristic", "FAULTY", "builtin:random"],
}
SEEDS = {"deep_sea_adventure": 7, "divee": 5, "dive_diver_die": 3, "deep_dive": 11, "dive": 4}
# Variants on, so that what they add is drawn and checked too.
OPTIONS = {"divee": '{"special_tiles": true}', "dive": '{"companions": true}'}


def v1_replay(name: str) -> dict:
    """A version 1 replay the runner recorded (tests/fixtures/replays_v1/README.md says which)."""
    return replays.load(V1_FIXTURES / f"{name}.replay.json.gz")


def play_replay(game: str, folder: Path, seats: list[str] | None = None, seed: int | None = None,
                options: str | None = None) -> Path:
    """Play one match with the CLI and return the path of its replay file."""
    seats = seats or GAME_SEATS[game]
    faulty = write_bot(folder, "faulty", FAULTY_BOT) if "FAULTY" in seats else None
    bots = [faulty if seat == "FAULTY" else seat for seat in seats]
    path = folder / f"{game}.replay.json.gz"
    command = [sys.executable, "-m", "workers.play", game, *bots, "--seed", str(SEEDS[game] if seed is None else seed),
               "--replay", str(path), *CLI_LIMITS]
    options = options or OPTIONS.get(game)
    if options:
        command += ["--options", options]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def record_match(replay: dict, users: list, ready_bot, name: str | None = None) -> object:
    """Store ``replay`` as a finished (unrated challenge) match of one ready bot per seat (named
    ``NAME-SEAT``, NAME the game's by default)."""
    from arena.matches.seating import compressed_public_replay
    from arena.matches.services import match_create
    from arena.runs.recording import match_record_outcome

    name = name or replay["game"][:10]
    bots = [ready_bot(f"{name}-{seat}", user=users[seat % len(users)], game=replay["game"])
            for seat in range(replay["num_players"])]
    match = match_create(game=replay["game"], versions=[bot.active_version for bot in bots], seed=replay["seed"],
                         options=replay["options"], kind="challenge", requested_by=users[0])
    # The platform's replays name each seat after its bot.
    replay = {**replay, "seats": [{**seat, "name": bots[seat["seat"]].name, "version": "v1"} for seat in replay["seats"]]}
    outcome = {"game": replay["game"], "seed": replay["seed"], "options": replay["options"],
               "scores": replay["result"]["scores"], "ranks": replay["result"]["ranks"],
               "faults": replay["faults"], "timing": [], "logs": []}
    match_record_outcome(match_id=match.pk, outcome=outcome, replay=compressed_public_replay(replay), worker="test")
    match.refresh_from_db()
    return match


def load(path) -> dict:
    return replays.load(path)
