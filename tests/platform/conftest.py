"""Shared fixtures of the platform tests: a game, bots with ready versions, outcomes.

The named users (``owner`` alice, ``other_user`` bob, ``staff`` carol, ``anonymous``) are
those of tests/conftest.py.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from engines import list_games
from tests.conftest import FIRST_ACTION_BOT

# The named users (owner, other_user, staff, anonymous) come from tests/conftest.py.
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


def _multiplayer_game() -> str:
    for game in list_games():
        if game.min_players <= 2 and game.max_players >= 4:
            return game.id
    pytest.skip("no registered game takes 2 to 4 players")


@pytest.fixture
def game_id() -> str:
    """A registered game that takes 2 to 4 players."""
    return _multiplayer_game()


@pytest.fixture
def solo_game_id() -> str:
    """A registered game with a solo mode."""
    for game in list_games():
        if game.min_players == 1:
            return game.id
    pytest.skip("no registered game has a solo mode")


def py_upload(content: bytes = SIMPLE_BOT, name: str = "bot.py") -> SimpleUploadedFile:
    """An uploaded ``.py`` file."""
    return SimpleUploadedFile(name, content, content_type="text/x-python")


def clean_outcome(game: str, seats: int, ranks: list[int] | None = None, faults=None) -> dict:
    """A runner outcome dict for ``seats`` seats (scores follow the ranks)."""
    ranks = ranks or list(range(1, seats + 1))
    return {
        "game": game, "seed": 1, "options": {},
        "scores": [float(10 * (seats - r)) for r in ranks], "ranks": ranks,
        "faults": faults or [],
        "timing": [{"seat": s, "decisions": 3, "mean_ms": 1.0, "p50_ms": 1.0, "p95_ms": 2.0,
                    "max_ms": 2.0, "bank_used_ms": 0.0} for s in range(seats)],
        "logs": [f"stderr of seat {s}" for s in range(seats)],
        "replay": {"version": 1},
    }


@pytest.fixture
def make_bot(owner):
    """Factory: a bot of ``game`` whose first version passed its smoke test (ready and active)."""
    from arena.bots.services import bot_create
    from arena.runs.smoke import bot_version_record_smoke_test

    def make(name: str, game: str, user=None):
        bot = bot_create(owner=user or owner, name=name, game=game, upload=py_upload())
        version = bot.versions.get()
        bot_version_record_smoke_test(version_id=version.pk, outcome=clean_outcome(game, 2))
        bot.refresh_from_db()
        return bot

    return make
