"""The engine contract shared by every game (see DESIGN.md, "Engine API").

A game module subclasses :class:`GameState`, describes itself with a :class:`GameInfo`
and exposes a module-level ``GAME = Game(info, StateClass, bots)``. The base class
validates every action against ``legal_actions`` before the game's own ``_apply`` runs,
so an :class:`IllegalAction` always leaves the state exactly as it was.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping
from typing import Any

from engines.rng import KeyedRandom, chance_source

Action = dict
Bot = Callable[[dict, list, random.Random], dict]


class IllegalAction(ValueError):
    """An action (or a set of simultaneous actions) the state does not accept; nothing changed."""


class InvalidOptions(ValueError):
    """Unknown option names or bad option values given to ``new_state``."""


@dataclass(frozen=True)
class GameInfo:
    """What a game is, independent of any one match."""

    id: str
    title: str
    min_players: int
    max_players: int
    simultaneous: bool
    chance: bool
    longest_game: str
    version: str = "1"
    default_options: Mapping[str, Any] = field(default_factory=dict)
    rules_file: str = ""


class GameState:
    """One position of one game. Subclasses implement the underscored hooks.

    Hooks a subclass provides:
      ``_to_act() -> list[int]``, ``_legal_actions(seat) -> list[dict]``,
      ``_apply(actions: dict[int, dict])`` (only ever called with validated actions),
      ``observation(seat)``, ``spectator_view()``, ``full_view()``, ``_result()``.

    Chance: ``self.rng`` is the state's chance source (engines.rng). A subclass draws from
    ``self.rng.stream(label, *numbers)``, keyed by where the chance sits (round, seat, turn,
    roll, deck), never from one stream in play order; ``label`` names the kind of chance.
    Streams a state keeps across ``apply`` calls must be copied by ``clone`` together with
    the source (engines.rng.copy_chance).
    """

    info: GameInfo

    def __init__(self, num_players: int, seed: int, options: dict, rng: random.Random):
        self.num_players = num_players
        self.seed = seed
        self.options = options
        self.rng = rng

    # --- public API -------------------------------------------------------------------
    def to_act(self) -> list[int]:
        """Seats that must decide now, in seat order; ``[]`` exactly when the game is over."""
        return self._to_act()

    def legal_actions(self, seat: int) -> list[Action]:
        """The legal actions of ``seat`` in canonical order; ``[]`` when it is not to act."""
        if seat not in self._to_act():
            return []
        return self._legal_actions(seat)

    def apply(self, actions: Mapping[int, Action]) -> None:
        """Apply one action for each seat in ``to_act()``; raise IllegalAction and change nothing otherwise."""
        if not isinstance(actions, Mapping):
            raise IllegalAction("apply() takes a mapping {seat: action}")
        to_act = self._to_act()
        if not to_act:
            raise IllegalAction("the game is over")
        seats = set(actions)
        if seats != set(to_act):
            raise IllegalAction(f"expected actions for seats {to_act}, got {sorted(seats, key=str)}")
        for seat in to_act:
            action = actions[seat]
            if action not in self._legal_actions(seat):
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action")
        self._apply({seat: actions[seat] for seat in to_act})

    def is_terminal(self) -> bool:
        """True when no seat has anything left to decide."""
        return not self._to_act()

    def result(self) -> dict:
        """``{"scores": [...], "ranks": [...]}`` of a finished game; rank 1 is best, ties share a rank."""
        if not self.is_terminal():
            raise ValueError("result() asked of a game that is not over")
        return self._result()

    def clone(self) -> GameState:
        """An independent copy: applying actions to it never touches this state."""
        return copy.deepcopy(self)

    # --- hooks --------------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        raise NotImplementedError

    def _legal_actions(self, seat: int) -> list[Action]:
        raise NotImplementedError

    def _apply(self, actions: dict[int, Action]) -> None:
        raise NotImplementedError

    def _result(self) -> dict:
        raise NotImplementedError

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know, and nothing more."""
        raise NotImplementedError

    def spectator_view(self) -> dict:
        """The public view: what anyone watching may know."""
        raise NotImplementedError

    def full_view(self) -> dict:
        """Everything, hidden information included (for replays after the game)."""
        raise NotImplementedError


def ranks_from_scores(scores: list, higher_is_better: bool = True) -> list[int]:
    """Competition ranks ("1224"): rank 1 is best and tied scores share the better rank.

    ``scores`` may hold tuples, compared lexicographically, for games with tie-breaks.
    """
    ordered = sorted(scores, reverse=higher_is_better)
    return [ordered.index(score) + 1 for score in scores]


class Game:
    """A registered game: its info, its state class and its built-in bots."""

    def __init__(self, info: GameInfo, state_class: type[GameState], bots: Mapping[str, Bot]):
        self.info = info
        self.state_class = state_class
        self.bots = dict(bots)

    id = property(lambda self: self.info.id)
    title = property(lambda self: self.info.title)
    min_players = property(lambda self: self.info.min_players)
    max_players = property(lambda self: self.info.max_players)
    version = property(lambda self: self.info.version)

    @property
    def default_options(self) -> dict:
        """A fresh copy of the game's default options."""
        defaults = self.info.default_options
        if not defaults:
            return {}                 # most games: no options, and no deep copy to pay for per game
        return copy.deepcopy(dict(defaults))

    def resolve_options(self, options: Mapping | None, num_players: int) -> dict:
        """Defaults updated with ``options``; InvalidOptions on unknown names or bad values."""
        resolved = self.default_options
        if options is not None and not isinstance(options, Mapping):
            raise InvalidOptions(f"options must be a JSON object, not {type(options).__name__}")
        if options:
            unknown = sorted(set(options) - set(resolved))
            if unknown:
                known = ", ".join(sorted(resolved)) or "none"
                raise InvalidOptions(f"unknown option(s) {unknown} for {self.id}; known: {known}")
            for name, value in options.items():
                if type(value) is not type(resolved[name]):
                    wanted = "true or false" if isinstance(resolved[name], bool) else type(resolved[name]).__name__
                    raise InvalidOptions(f"option {name!r} must be {wanted}, got {value!r}")
                resolved[name] = value
        return resolved

    def new_state(self, num_players: int, seed: int = 0, options: Mapping | None = None,
                  rng=None) -> GameState:
        """A new game. All chance comes from ``rng``: by default ``KeyedRandom(seed)``, chance
        keyed by where it sits; tests pass an ``engines.rng.ScriptedRandom``."""
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise ValueError("num_players must be an integer")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer (it makes the game reproducible), not {seed!r}")
        info = self.info
        if not info.min_players <= num_players <= info.max_players:
            raise ValueError(
                f"{self.id} takes {self.min_players}-{self.max_players} players, not {num_players}")
        if options is None and not info.default_options:
            resolved = {}                 # no options to check, nothing to copy
        else:
            resolved = self.resolve_options(options, num_players)
        source = KeyedRandom(seed) if rng is None else chance_source(rng)
        return self.state_class(num_players, seed, resolved, source)

    def __repr__(self) -> str:
        return f"<Game {self.id}>"
