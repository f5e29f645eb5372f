"""Factories shared by the test folders: bot sources, uploaded files, runner outcomes, ready bots.

One place for the set-up that test files used to copy from each other (and import from conftest
modules). Fixtures that wrap these (``bot_upload``, ``ready_bot``, ``make_bot``) stay in the
conftest files; plain helpers live here.
"""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

# A bot that answers every decision with the first legal action.
FIRST_ACTION_BOT = b"""import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        print(json.dumps({"index": 0}), flush=True)
    elif msg["type"] == "end":
        break
"""
SIMPLE_BOT = FIRST_ACTION_BOT

# A bot to catch mid-match: 2 s before it says ready (the init limit is 3 s), then 50 ms a move.
# The pause, not the game, makes the match long: some seeds end a game after a handful of
# decisions (1 % of Deep Dive games give the first-action bot 10 or fewer, some none at all).
SLOW_BOT = SIMPLE_BOT.replace(
    b'    if msg["type"] == "start":\n',
    b'    if msg["type"] == "start":\n        import time; time.sleep(2.0)\n').replace(
    b'    elif msg["type"] == "act":\n',
    b'    elif msg["type"] == "act":\n        import time; time.sleep(0.05)\n')
assert SLOW_BOT.count(b"time.sleep") == 2


def upload_file(content: bytes = FIRST_ACTION_BOT, name: str = "bot.py",
                content_type: str = "application/octet-stream") -> SimpleUploadedFile:
    """An uploaded file (a valid ``.py`` bot unless told otherwise)."""
    return SimpleUploadedFile(name, content, content_type=content_type)


def py_upload(content: bytes = SIMPLE_BOT, name: str = "bot.py") -> SimpleUploadedFile:
    """An uploaded ``.py`` file."""
    return upload_file(content, name, content_type="text/x-python")


def runner_outcome(game: str, seats: int, *, ranks: list[int] | None = None, faults=None, seed: int = 1,
                   decisions: int = 3, times_ms: tuple[float, float, float, float] = (1.0, 1.0, 2.0, 2.0),
                   log: str = "stderr of seat {seat}", replay: dict | None = None) -> dict:
    """A runner outcome dict for ``seats`` seats (scores follow the ranks); ``times_ms`` are each
    seat's mean, p50, p95 and max decision times; no ``replay`` key when ``replay`` is None."""
    ranks = ranks or list(range(1, seats + 1))
    mean_ms, p50_ms, p95_ms, max_ms = times_ms
    outcome = {
        "game": game, "seed": seed, "options": {},
        "scores": [float(10 * (seats - r)) for r in ranks], "ranks": ranks,
        "faults": faults or [],
        "timing": [{"seat": s, "decisions": decisions, "mean_ms": mean_ms, "p50_ms": p50_ms, "p95_ms": p95_ms,
                    "max_ms": max_ms, "bank_used_ms": 0.0} for s in range(seats)],
        "logs": [log.format(seat=s) for s in range(seats)],
    }
    if replay is not None:
        outcome["replay"] = replay
    return outcome


def clean_outcome(game: str, seats: int, ranks: list[int] | None = None, faults=None) -> dict:
    """A runner outcome of a clean match, as the platform tests record it (with a version 1 replay)."""
    return runner_outcome(game, seats, ranks=ranks, faults=faults, replay={"version": 1})


def summary_outcome(game: str, seats: int, faults: list | None = None) -> dict:
    """A runner outcome with the timing figures the page tests show (no replay)."""
    return runner_outcome(game, seats, faults=faults, seed=7, decisions=12, times_ms=(3.25, 3.0, 7.5, 9.0),
                          log="stderr line of seat {seat}")


def ready_bot_create(*, owner, name: str, game: str, upload=None, outcome: dict | None = None):
    """A bot of ``owner`` whose first version passed its smoke test (ready and active)."""
    from arena.bots.services import bot_create
    from arena.runs.smoke import bot_version_record_smoke_test

    bot = bot_create(owner=owner, name=name, game=game, upload=upload or py_upload())
    bot_version_record_smoke_test(version_id=bot.versions.get().pk, outcome=outcome or clean_outcome(game, 2))
    bot.refresh_from_db()
    return bot
