"""Pure, deterministic game engines (no Django, no I/O, no global randomness).

Every game is a subpackage (or module) of ``engines`` that defines ``GAME``, an
:class:`engines.core.Game`; ``list_games()`` finds them all.
"""

from __future__ import annotations

import importlib
import pkgutil

from engines.core import Game, GameFacts, GameInfo, GameState, IllegalAction, InvalidOptions, ranks_from_scores
from engines.rng import KeyedRandom, ScriptedRandom, ScriptExhausted, ScriptMismatch

__all__ = [
    "Game", "GameFacts", "GameInfo", "GameState", "IllegalAction", "InvalidOptions", "KeyedRandom", "ScriptedRandom",
    "ScriptExhausted", "ScriptMismatch", "get_game", "list_games", "ranks_from_scores",
]

# Not game modules: the engine core itself.
_CORE_MODULES = {"core", "rng", "bots", "readonly"}
_registry: dict[str, Game] | None = None


def _discover() -> dict[str, Game]:
    global _registry
    if _registry is None:
        found = {}
        for module_info in pkgutil.iter_modules(__path__):
            if module_info.name in _CORE_MODULES or module_info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{module_info.name}")
            game = getattr(module, "GAME", None)
            if isinstance(game, Game):
                found[game.id] = game
        _registry = dict(sorted(found.items()))
    return _registry


def list_games() -> list[Game]:
    """Every registered game, sorted by id."""
    return list(_discover().values())


def get_game(game_id: str) -> Game:
    """The game with this id; KeyError naming the known ids otherwise."""
    games = _discover()
    try:
        return games[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known games: {', '.join(games)}") from None
