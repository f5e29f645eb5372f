"""The engine contract shared by every game (see DESIGN.md, "Engine API").

A game module subclasses :class:`GameState`, describes itself with a :class:`GameInfo`
and exposes a module-level ``GAME = Game(info, StateClass, bots, facts)`` (:class:`GameFacts`). The base class's ``apply``
is the only one (no engine overrides it: tests/engines/test_base_validation.py): it validates
every action against the legal actions (through the game's ``_choice``, which finds a legal
action the way ``action in legal_actions(seat)`` would, only faster) before the game's own
``_apply`` step runs, so an :class:`IllegalAction` always leaves the state exactly as it was.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from engines.rng import KeyedRandom, chance_source

Action = dict
Bot = Callable[[dict, list, random.Random], dict]


class ChanceSource(Protocol):
    """Where a state's chance comes from (engines.rng): ``KeyedRandom`` in play, ``ScriptedRandom``
    in tests, ``PlayOrderRandom`` around a plain ``random.Random``."""

    def stream(self, label: str, *numbers: int) -> Any:
        """The chance stream keyed by ``label`` and ``numbers`` (where the chance sits)."""
        ...


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


@dataclass(frozen=True)
class GameFacts:
    """What the rest of the house needs to know about a game besides its rules: everything a new
    game adds is here, in ``engines/`` (tests/engines/test_game_facts.py checks every game has it).

    ``summary``: one line, what it feels like to play (pages, the API). ``default_limits``: the
    match limits that differ from the runner's generic ones (``move_ms``, ``bank_ms``, ``init_ms``:
    workers.match.clock.Limits). ``viewer_script``: its renderer under ``static/``, which the replay
    viewer loads. ``legend``: the public component data that renderer draws from (``{}`` when none).
    ``k_factor``: the Elo K of a new ladder of it (bench/rating_quality.py). ``replay_dictionary``:
    ``(position, seat count)`` of each of its sample replays in the stored replays' preset
    dictionary (scripts/replay_dictionary.py; the positions order the samples of all games).
    """

    summary: str
    viewer_script: str
    default_limits: Mapping[str, int] = field(default_factory=dict)
    legend: Callable[[], dict] = dict
    k_factor: float = 16.0
    replay_dictionary: tuple[tuple[int, int], ...] = ()


class GameState:
    """One position of one game. Subclasses implement the underscored hooks.

    Hooks a subclass provides:
      ``_to_act() -> list[int]``, ``_legal_actions(seat) -> list[dict]``,
      ``_apply(choices: dict[int, object])``, the game's own step, only ever called by ``apply``
      with every seat to act and the ``_choice`` of its validated action,
      ``observation(seat)``, ``spectator_view()``, ``full_view()``, ``_result()``;
      optionally ``_choice(seat, action)``, a faster equivalent of the default (below).

    Chance: ``self.rng`` is the state's chance source (engines.rng). A subclass draws from
    ``self.rng.stream(label, *numbers)``, keyed by where the chance sits (round, seat, turn,
    roll, deck), never from one stream in play order; ``label`` names the kind of chance.
    Streams a state keeps across ``apply`` calls must be copied by ``clone`` together with
    the source (engines.rng.copy_chance).
    """

    info: GameInfo

    def __init__(self, num_players: int, seed: int, options: dict, rng: ChanceSource):
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
        """Apply one action for each seat in ``to_act()``; raise IllegalAction and change nothing otherwise.

        Every engine's only ``apply``: the checks, then the game's own step (``_apply``) with each
        seat's validated choice."""
        if type(actions) is not dict:
            if not isinstance(actions, Mapping):
                raise IllegalAction("apply() takes a mapping {seat: action}")
            actions = dict(actions)            # a plain copy: no __missing__ or view to call
        to_act = self._to_act()
        if not to_act:
            raise IllegalAction("the game is over")
        if len(actions) != len(to_act):
            raise IllegalAction(f"expected actions for seats {list(to_act)}, got {sorted(actions, key=str)}")
        choose = self._choice
        choices = {}
        for seat in to_act:
            try:
                action = actions[seat]
            except KeyError:
                raise IllegalAction(
                    f"expected actions for seats {list(to_act)}, got {sorted(actions, key=str)}") from None
            choice = choose(seat, action)
            if choice is None:
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action")
            choices[seat] = choice
        self._apply(choices)

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

    def _choice(self, seat: int, action: Any) -> Any:
        """The game's own form of ``action`` for ``seat`` (to act) when it is legal, else None.

        Legal means what ``action in legal_actions(seat)`` decides (equality: 1 == 1.0 == True).
        The default is the engine's own legal action equal to it (an equal action written with
        1.0 or True never reaches the state); a game may answer faster with an index or a key,
        as long as it decides exactly the same (tests/engines/test_base_validation.py)."""
        legal = self._legal_actions(seat)
        try:
            return legal[legal.index(action)]
        except ValueError:
            return None

    def _apply(self, choices: dict[int, Any]) -> None:
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
    """A registered game: its info, its state class, its built-in bots and its facts."""

    def __init__(self, info: GameInfo, state_class: type[GameState], bots: Mapping[str, Bot], facts: GameFacts):
        self.info = info
        self.state_class = state_class
        self.bots = dict(bots)
        self.facts = facts

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
