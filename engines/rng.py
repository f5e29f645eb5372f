"""Random sources for engines: the seeded default and a scripted one for tests.

Engines only call ``randint``, ``randrange``, ``choice``, ``shuffle``, ``sample`` and
``random`` on the source they are given, so a test can fix every chance outcome by
passing a :class:`ScriptedRandom` to ``game.new_state(..., rng=...)`` instead of
patching the ``random`` module.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable


class ScriptExhausted(AssertionError):
    """The engine asked for more chance than the test scripted."""


class ScriptMismatch(AssertionError):
    """A scripted outcome does not fit the call the engine made (out of range, not a permutation, ...)."""


class ScriptedRandom(random.Random):
    """Plays back scripted outcomes, in order, one per call; fails loudly when they run out.

    Entries, by the call that consumes them:
      * ``randint(a, b)`` / ``randrange(...)``: the integer to return (checked to be in range);
      * ``choice(seq)``: the element to return (must be in ``seq``);
      * ``shuffle(lst)``: the wanted order. A full permutation of ``lst`` sets the whole
        order; a shorter list sets the first elements and the rest keep their order;
      * ``sample(pop, k)``: the list of ``k`` elements to return;
      * ``random()``: a float in [0, 1).
    A ``fallback`` seed may be given to continue with seeded chance after the script ends
    (for tests that only pin the start of a game); without it, running out raises.
    """

    def __init__(self, outcomes: Iterable[Any], fallback: int | None = None):
        super().__init__(0)
        self._outcomes = list(outcomes)
        self._position = 0
        self._fallback = random.Random(fallback) if fallback is not None else None
        self.calls: list[str] = []

    @property
    def remaining(self) -> int:
        """How many scripted outcomes have not been used yet."""
        return len(self._outcomes) - self._position

    def _next(self, call: str):
        self.calls.append(call)
        if self._position >= len(self._outcomes):
            if self._fallback is not None:
                return _FALLBACK
            raise ScriptExhausted(
                f"scripted random source ran out at call #{len(self.calls)}: {call}")
        outcome = self._outcomes[self._position]
        self._position += 1
        return outcome

    def randint(self, a: int, b: int) -> int:
        value = self._next(f"randint({a}, {b})")
        if value is _FALLBACK:
            return self._fallback.randint(a, b)
        if not (isinstance(value, int) and a <= value <= b):
            raise ScriptMismatch(f"randint({a}, {b}) scripted with {value!r}")
        return value

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        value = self._next(f"randrange({start}, {stop}, {step})")
        if value is _FALLBACK:
            return self._fallback.randrange(start, stop, step)
        if value not in range(start, stop, step):
            raise ScriptMismatch(f"randrange({start}, {stop}, {step}) scripted with {value!r}")
        return value

    def choice(self, seq):
        value = self._next(f"choice(<{len(seq)} items>)")
        if value is _FALLBACK:
            return self._fallback.choice(seq)
        if value not in seq:
            raise ScriptMismatch(f"choice scripted with {value!r}, which is not among {list(seq)!r}")
        return value

    def shuffle(self, lst) -> None:
        wanted = self._next(f"shuffle(<{len(lst)} items>)")
        if wanted is _FALLBACK:
            self._fallback.shuffle(lst)
            return
        pool = list(lst)
        try:
            for item in wanted:
                pool.remove(item)
        except (ValueError, TypeError):
            raise ScriptMismatch(f"shuffle scripted with {wanted!r}, not drawn from {list(lst)!r}")
        lst[:] = list(wanted) + pool

    def sample(self, population, k, **kwargs):
        wanted = self._next(f"sample(<{len(population)} items>, {k})")
        if wanted is _FALLBACK:
            return self._fallback.sample(population, k)
        if len(wanted) != k or +(Counter(map(repr, wanted)) - Counter(map(repr, population))):
            raise ScriptMismatch(f"sample(k={k}) scripted with {wanted!r}, not drawn from {list(population)!r}")
        return list(wanted)

    def random(self) -> float:
        value = self._next("random()")
        if value is _FALLBACK:
            return self._fallback.random()
        if not (isinstance(value, float) and 0.0 <= value < 1.0):
            raise ScriptMismatch(f"random() scripted with {value!r}")
        return value

    def __deepcopy__(self, memo):
        twin = ScriptedRandom(self._outcomes)
        twin._position = self._position
        twin.calls = list(self.calls)
        if self._fallback is not None:
            twin._fallback = random.Random()
            twin._fallback.setstate(self._fallback.getstate())
        return twin

    def getrandbits(self, k: int) -> int:
        raise ScriptMismatch("engines must not call getrandbits on a scripted source")


_FALLBACK = object()
