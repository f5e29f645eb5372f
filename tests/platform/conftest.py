"""Shared fixtures of the platform tests: a game, bots with ready versions, outcomes.

The named users (``owner`` alice, ``other_user`` bob, ``staff`` carol, ``anonymous``) are
those of tests/conftest.py.
"""

from __future__ import annotations

import pytest

from engines import list_games

# The named users (owner, other_user, staff, anonymous) come from tests/conftest.py; bot sources,
# uploads and outcomes from tests/factories.py.


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
