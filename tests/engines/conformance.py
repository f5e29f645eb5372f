"""Helpers shared by the engine tests: random playouts and JSON checks."""

from __future__ import annotations

import json
import random

from engines import GameState

MAX_DECISIONS = 200_000


def as_json(value):
    """The value after a JSON round trip; fails when it is not JSON-serialisable."""
    return json.loads(json.dumps(value, sort_keys=True))


def random_playout(state: GameState, chooser_seed: int, record: list | None = None) -> GameState:
    """Plays ``state`` to the end with uniformly random legal actions; returns it."""
    chooser = random.Random(chooser_seed)
    for _ in range(MAX_DECISIONS):
        seats = state.to_act()
        if not seats:
            return state
        actions = {}
        for seat in seats:
            legal = state.legal_actions(seat)
            assert legal, f"seat {seat} is to act but has no legal action"
            actions[seat] = legal[chooser.randrange(len(legal))]
        if record is not None:
            record.append(actions)
        state.apply(actions)
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


def player_counts(game) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


class MethodsOnly:
    """A keyed source whose streams offer only the random.Random-like calls (no ``take``), so
    engines draw one call at a time from it, as they do from a scripted source."""

    def __init__(self, source):
        self.source = source

    def stream(self, label, *numbers):
        return _MethodsOnlyStream(self.source.stream(label, *numbers))


class _MethodsOnlyStream:
    def __init__(self, stream):
        self._stream = stream

    def random(self):
        return self._stream.random()

    def randrange(self, *args):
        return self._stream.randrange(*args)

    def randint(self, a, b):
        return self._stream.randint(a, b)

    def choice(self, seq):
        return self._stream.choice(seq)

    def shuffle(self, x):
        self._stream.shuffle(x)

    def sample(self, population, k, *, counts=None):
        return self._stream.sample(population, k, counts=counts)

    def skip(self, count=1):
        self._stream.skip(count)
