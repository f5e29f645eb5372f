"""Luck accounting: how much of each seat's score the dice gave it (DESIGN.md, "Luck"; docs/luck.md).

    from workers.luck import luck_of_game
    luck_of_game(game_id, num_players=N, seed=S, options=None, actions=[{seat: action}, ...])
        -> [luck per seat]                      (score units; ``score - luck`` measures play)
    luck_by_step(...)                           -> {"setup": [...], "steps": [[...], ...], "total": [...]}

The luck of seat s in a chance event is ``V_s(after the event) - E[V_s over the event's
outcomes]``; a seat's luck is the sum over the game's events. Its expectation is 0 whatever V is
(each term has mean 0 given everything before the event), so ``score - luck`` is an unbiased
measure of play, less noisy the better V follows the final score (the control variate behind
AIVAT). V is a fixed, deterministic estimate of each seat's final score from the full state
(workers.luck_values: a value function fitted to games of the built-in heuristic).

An *event* here is the chance of one step: every draw the engine makes from its chance source
while it plays one ``apply`` (or ``new_state``, the setup) on to the next decision. Nothing in the
engines changes: the game is replayed from its seed with a chance source that wraps the game's own
(engines.rng.KeyedRandom) and records every draw; then the step is played again from a copy of
the state before it with its draws forced to each possible outcome, and V is read at the next
decision. Outcomes:

- when every draw of the step is enumerable (a ``choice``: a die, a card; a small ``randint``;
  one token from a bag; a ``random()`` read through the game's declared buckets) and the step has
  at most ``enumerate_limit`` joint outcomes, every joint outcome is played, weighted exactly
  (a branch whose draws differ from the recorded ones, e.g. a bag that changed, falls back to
  sampling);
- otherwise (shuffles, several tokens, many dice) ``samples`` joint outcomes are drawn from a
  source independent of the game and their mean V stands for the expectation (still unbiased).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence

from engines import get_game
from engines.rng import KeyedRandom
from workers.luck_values import REVEALS, VALUES, WEIGHTS_DIGEST

__all__ = ["LUCK_MODEL", "LuckModel", "MODELS", "luck_of_game", "luck_by_step", "luck_report", "luck_lines"]

# Bumped whenever this module measures differently (2: decks, forced draws keep their place).
LUCK_METHOD = 2
# What a stored luck was measured by: the method and a digest of V's weights (arena re-measures
# luck measured by another).
LUCK_MODEL = f"{LUCK_METHOD}.{WEIGHTS_DIGEST}"

_ENUMERATE_UP_TO = 36       # integer draws over at most this many values are enumerated exactly
_ALL = 1 << 62              # "every draw of the step" as a draw index bound


def _derived_seed(seed: int, label: bytes) -> int:
    """An integer seed for an independent source, a pure function of the game's seed and a label."""
    size = max(8, (seed.bit_length() + 8) // 8)
    digest = hashlib.blake2b(seed.to_bytes(size, "little", signed=True) + b"\0" + label,
                             digest_size=8, person=b"dive-arena-luck").digest()
    return int.from_bytes(digest, "little")


@dataclass(frozen=True)
class LuckModel:
    """How one game's luck is measured: V, and how an event's outcomes are covered.

    ``value(state)`` is V: every seat's estimated final score (deterministic, from the full
    state, read at a decision point or the end). ``float_buckets`` lists the ``[lo, hi)``
    intervals a ``random()`` draw is read by (each has probability ``hi - lo``; the engine must
    give the same outcome for every float of a bucket). ``samples`` joint outcomes stand for a
    step whose outcomes are not enumerated; at most ``enumerate_limit`` joint outcomes are.
    ``setup`` says whether the chance drawn before the first decision counts.

    ``reveals(state, memo)``, for a game whose hidden values were dealt at the setup but are
    only revealed when a seat takes them (Deep Sea Adventure's chips), lists after each step the
    values revealed in it, each as a list of equally likely states: the actual one first, then
    the same state with the revealed value swapped with each value it could equally have been
    (``memo`` is the model's own record across the game). Its luck is V(actual) minus the mean
    over that list, for the same reason as for a draw.

    ``decks`` names the state's lists that hold a deck shuffled at the setup and dealt from the
    front (Dive! Diver! Die!'s event deck and Oxygenator). The setup's shuffle is one event whose
    outcomes V cannot tell apart (V does not read a deck's order), so its luck would go unseen;
    instead a card's luck is counted when a step deals it: V(actual) minus the mean of V over
    ``samples`` replays of the step with the undealt deck in an order drawn from a source
    independent of the game. Given everything V reads, every order of the undealt cards is
    equally likely, so the mean stands for the expectation and the luck has mean 0.
    """

    value: Callable
    float_buckets: tuple = ()
    samples: int = 8
    enumerate_limit: int = 64
    setup: bool = True
    reveals: Callable | None = None
    decks: tuple[str, ...] = ()


MODELS: dict[str, LuckModel] = {
    # A turn rolls two dice (faces 1, 1, 2, 2, 3, 3; one random() each, read as int(r * 6)).
    "deep_sea_adventure": LuckModel(VALUES["deep_sea_adventure"],
                                    float_buckets=((0.0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.0)),
                                    reveals=REVEALS["deep_sea_adventure"]),
    "dive_diver_die": LuckModel(VALUES["dive_diver_die"], decks=("event_deck", "oxygenator")),
    "deep_dive": LuckModel(VALUES["deep_dive"]),
    "divee": LuckModel(VALUES["divee"]),
    "dive": LuckModel(VALUES["dive"]),
}

_REAL, _BRANCH = 0, 1


class _Diverged(Exception):
    """A forced branch asked for a draw that does not match the recorded one."""


class _Chance:
    """What every stream of one luck computation shares: the game's source and the orders.

    In ``_REAL`` mode draws come from the game's own source (recorded when ``record`` is a list).
    In ``_BRANCH`` mode draw ``i`` of the step is real when ``i < lo``, else ``forcer`` makes it.
    """

    __slots__ = ("real", "mode", "index", "lo", "forcer", "record")

    def __init__(self, seed: int):
        self.real = KeyedRandom(seed)
        self.mode, self.index, self.lo = _REAL, 0, 0
        self.forcer: Callable | None = None
        self.record: list | None = None

    def real_step(self, record: list | None) -> None:
        self.mode, self.index, self.record = _REAL, 0, record

    def branch(self, lo: int, forcer) -> None:
        self.mode, self.index, self.lo, self.forcer = _BRANCH, 0, lo, forcer


class _Source:
    """The chance source handed to the engine: streams by key, like KeyedRandom (immutable)."""

    __slots__ = ("_chance",)

    def __init__(self, chance: _Chance):
        self._chance = chance

    def stream(self, label: str, *numbers: int) -> _Stream:
        return _Stream(self._chance, self._chance.real.stream(label, *numbers))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self) -> str:
        return "<luck chance source>"


class _Draw:
    __slots__ = ("name", "args", "kwargs", "result")

    def __init__(self, name, args, kwargs, result):
        self.name, self.args, self.kwargs, self.result = name, args, kwargs, result


class _Stream:
    """One key's draws: the game's own stream, or outcomes forced by the current branch."""

    __slots__ = ("_chance", "_real")

    def __init__(self, chance: _Chance, real):
        self._chance, self._real = chance, real

    def _draw(self, name: str, args: tuple, kwargs: dict):
        chance = self._chance
        index = chance.index
        chance.index = index + 1
        if chance.mode == _REAL:
            if chance.record is None:
                return getattr(self._real, name)(*args, **kwargs)
            snapshot = tuple(list(a) if type(a) is list else a for a in args)
            result = getattr(self._real, name)(*args, **kwargs)
            chance.record.append(_Draw(name, snapshot, {key: list(value) for key, value in kwargs.items()},
                                       list(args[0]) if name == "shuffle" else result))
            return result
        if index < chance.lo:
            return getattr(self._real, name)(*args, **kwargs)
        assert chance.forcer is not None  # set by branch() before any draw in _BRANCH mode
        return chance.forcer(self._real, index, name, args, kwargs)

    def random(self):
        return self._draw("random", (), {})

    def randrange(self, *args):
        return self._draw("randrange", args, {})

    def randint(self, a, b):
        return self._draw("randint", (a, b), {})

    def choice(self, seq):
        return self._draw("choice", (seq,), {})

    def shuffle(self, x):
        return self._draw("shuffle", (x,), {})

    def sample(self, population, k, *, counts=None):
        return self._draw("sample", (population, k), {} if counts is None else {"counts": counts})

    def skip(self, count: int = 1) -> None:
        self._real.skip(count)

    def __copy__(self):
        return _Stream(self._chance, self._real.__copy__())

    def __deepcopy__(self, memo):
        return self.__copy__()


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _distinct(values: Sequence, weights: Sequence[float]) -> tuple[list, list]:
    """Equal values merged, their weights added (values may be unhashable: compared with ==)."""
    kept: list = []
    total: list[float] = []
    for value, weight in zip(values, weights):
        if not weight:
            continue
        for i, seen in enumerate(kept):
            if _same(seen, value):
                total[i] += weight
                break
        else:
            kept.append(value)
            total.append(weight)
    return kept, total


def _draw_outcomes(draw: _Draw, buckets: tuple) -> tuple[list, list, int] | None:
    """``(values, weights, index of the recorded outcome)`` of a draw whose outcomes can be
    listed, or None. A ``random()`` outcome is its bucket's low end."""
    name, args, kwargs, result = draw.name, draw.args, draw.kwargs, draw.result
    if name == "choice" and args[0]:
        values, weights = _distinct(list(args[0]), [1.0 / len(args[0])] * len(args[0]))
    elif name in ("randint", "randrange"):
        span = range(args[0], args[1] + 1) if name == "randint" else range(*args)
        if not 0 < len(span) <= _ENUMERATE_UP_TO:
            return None
        values, weights = list(span), [1.0 / len(span)] * len(span)
    elif name == "sample" and args[1] == 1 and "counts" in kwargs:
        counts = kwargs["counts"]
        total = sum(counts)
        values, weights = _distinct([[item] for item in args[0]], [c / total for c in counts])
    elif name == "random" and buckets:
        values, weights = [lo for lo, _ in buckets], [hi - lo for lo, hi in buckets]
        return values, weights, next(i for i, (lo, hi) in enumerate(buckets) if lo <= result < hi)
    else:
        return None
    return values, weights, next(i for i, value in enumerate(values) if _same(value, result))


def _forcing(draws: list, combo: tuple):
    """A forcer that plays joint outcome ``combo`` of the recorded ``draws`` (checked to match).

    A branch may draw more than the recorded step did (a diver home on a better roll, and the
    next seat's turn rolls at once): its extra draws come from the game's own streams, past the
    draws the step recorded, which the game has not made yet, so they are independent of the
    outcome that happened and the luck stays unbiased. (A forced draw therefore still takes its
    place in its stream: were it to leave the stream where it was, a later draw of the same
    stream, a lone diver's next roll, would repeat the outcome that happened.)"""
    def force(real, index, name, args, kwargs):
        if index >= len(draws):
            return getattr(real, name)(*args, **kwargs)
        recorded = draws[index]
        if (name != recorded.name or len(args) != len(recorded.args)
                or any(not _same(list(a) if type(a) is list else a, b) for a, b in zip(args, recorded.args))
                or {k: list(v) for k, v in kwargs.items()} != recorded.kwargs):
            raise _Diverged
        getattr(real, name)(*args, **kwargs)  # the recorded draw's place in its stream (see above)
        value = combo[index]
        return list(value) if type(value) is list else value
    return force


def _sampling(sampler: KeyedRandom, where: tuple):
    """A forcer that draws every draw of the step from the independent ``sampler`` (its own
    stream per draw index, so outcomes never depend on how many draws came before)."""
    def force(real, index, name, args, kwargs):
        return getattr(sampler.stream("outcome", *where, index), name)(*args, **kwargs)
    return force


class _Computation:
    """One game's luck: replays it, then measures the chance of every step."""

    def __init__(self, game_id: str, num_players: int, seed: int, options, model: LuckModel | None):
        self.game = get_game(game_id)
        self.model = model or MODELS[game_id]
        self.num_players = num_players
        self.seed = seed
        self.options = options
        self.chance = _Chance(seed)
        self.source = _Source(self.chance)
        self.sampler = KeyedRandom(_derived_seed(seed, b"outcomes"))
        self.evaluations = 0

    def new_state(self):
        return self.game.new_state(self.num_players, self.seed, self.options, rng=self.source)

    def evaluate(self, run: Callable, lo: int, forcer) -> list[float]:
        """V after the step played by ``run`` with its draws from ``lo`` on made by ``forcer``."""
        self.chance.branch(lo, forcer)
        self.evaluations += 1
        return self.model.value(run())

    def joint_outcomes(self, draws: list) -> tuple[list, list, int] | None:
        """Every joint outcome of the step's draws with its weight, and the recorded one's index;
        None when a draw is not enumerable or there are too many."""
        combos: list[tuple] = [()]
        weights, actual = [1.0], 0
        for draw in draws:
            found = _draw_outcomes(draw, self.model.float_buckets)
            if found is None or len(combos) * len(found[0]) > self.model.enumerate_limit:
                return None
            values, chances, happened = found
            actual = actual * len(values) + happened
            combos = [combo + (value,) for combo in combos for value in values]
            weights = [w * c for w in weights for c in chances]
        return combos, weights, actual

    def step_luck(self, run: Callable, draws: list, step: int) -> list[float]:
        """The luck of every seat in the chance of one step (``run`` plays the step again)."""
        n = self.num_players
        enumerated = self.joint_outcomes(draws)
        values = None
        if enumerated is not None:
            combos, weights, actual = enumerated
            if len(combos) < 2:
                return [0.0] * n
            try:
                values = [self.evaluate(run, 0, _forcing(draws, combo)) for combo in combos]
                happened = values[actual]
            except _Diverged:
                values = None
        if values is None:
            count = max(1, self.model.samples)
            weights = [1.0 / count] * count
            values = [self.evaluate(run, 0, _sampling(self.sampler, (step + 2, k))) for k in range(count)]
            happened = self.evaluate(run, _ALL, None)
        return [happened[seat] - sum(w * v[seat] for w, v in zip(weights, values)) for seat in range(n)]

    def reveal_luck(self, alternatives: list, luck: list[float]) -> list[float]:
        """``luck`` plus that of one revealed value: V(actual, first) minus the mean of V over the
        equally likely alternatives."""
        values = [self.model.value(state) for state in alternatives]
        self.evaluations += len(values)
        count = len(values)
        return [luck[s] + values[0][s] - sum(v[s] for v in values) / count for s in range(self.num_players)]

    def deck_luck(self, before, joint: Mapping, after, step: int, luck: list[float]) -> list[float]:
        """``luck`` plus that of the cards the step dealt from the model's decks (see LuckModel)."""
        for number, deck in enumerate(self.model.decks):
            cards, left = getattr(before, deck), getattr(after, deck)
            dealt = len(cards) - len(left)
            if dealt <= 0 or list(cards[dealt:]) != list(left) or len(set(cards)) < 2:
                continue  # nothing dealt (or the deck was renewed): no card of it was revealed
            values = []
            for sample in range(max(1, self.model.samples)):
                twin = before.clone()
                order = list(cards)
                self.sampler.stream("deck", number, step, sample).shuffle(order)
                setattr(twin, deck, order)
                self.chance.branch(_ALL, None)  # the step's own draws, as they came
                twin.apply(joint)
                values.append(self.model.value(twin))
            self.evaluations += len(values)
            happened = self.model.value(after)
            count = len(values)
            luck = [luck[s] + happened[s] - sum(v[s] for v in values) / count for s in range(self.num_players)]
        return luck

    def run(self, actions: Sequence[Mapping]) -> dict:
        chance, n = self.chance, self.num_players
        record: list = []
        chance.real_step(record)
        state = self.new_state()
        setup = [0.0] * n
        if self.model.setup and record:
            setup = self.step_luck(self.new_state, record, -1)
        steps = []
        memo: dict = {}
        if self.model.reveals:
            self.model.reveals(state, memo)
        for number, joint in enumerate(actions):
            before = state.clone()
            record = []
            chance.real_step(record)
            state.apply(joint)
            luck = [0.0] * n
            if record:

                def replay(before=before, joint=joint):
                    again = before.clone()
                    again.apply(joint)
                    return again

                luck = self.step_luck(replay, record, number)
            if self.model.reveals:
                for alternatives in self.model.reveals(state, memo):
                    luck = self.reveal_luck(alternatives, luck)
            if self.model.decks:
                luck = self.deck_luck(before, joint, state, number, luck)
            steps.append(luck)
        chance.real_step(None)
        total = [setup[s] + sum(step[s] for step in steps) for s in range(n)]
        scores = state.result()["scores"] if state.is_terminal() else None
        return {"setup": setup, "steps": steps, "total": total, "scores": scores,
                "evaluations": self.evaluations}


def _joint(actions) -> list[dict]:
    joint = []
    for number, step in enumerate(actions):
        if not isinstance(step, Mapping):
            raise ValueError(f"step {number}: actions are a mapping {{seat: action}}, not {type(step).__name__}")
        joint.append({int(seat): action for seat, action in step.items()})
    return joint


def luck_by_step(game_id: str, num_players: int, seed: int, options=None, actions=(),
                 model: LuckModel | None = None) -> dict:
    """Every seat's luck in the setup, in each step and in total, for a game replayed from
    ``seed`` and ``actions`` (the action dicts ``state.apply`` took, step by step).

    Returns ``{"setup": [...], "steps": [[...] per step], "total": [...], "scores": [...] or None,
    "evaluations": how many times V was read}``; IllegalAction or ValueError for actions that do
    not replay, KeyError for an unknown game.
    """
    computation = _Computation(game_id, num_players, seed, options, model)
    return computation.run(_joint(actions))


def luck_of_game(game_id: str, num_players: int, seed: int, options=None, actions=(),
                 model: LuckModel | None = None) -> list[float]:
    """Each seat's luck over the whole game (score units), as DESIGN.md's "Luck" contract says."""
    return luck_by_step(game_id, num_players, seed, options, actions, model)["total"]


def luck_report(game_id: str, num_players: int, seed: int, options, actions) -> dict:
    """What ``python -m workers.replay luck --json`` prints for a finished game: every seat's
    score, luck and play (score - luck), the setup's luck and every step's (rounded to 0.001).
    ValueError when the actions do not finish the game (IllegalAction when one does not replay)."""
    luck = luck_by_step(game_id, num_players, seed, options, actions)
    if luck["scores"] is None:
        raise ValueError(f"the game is not over after the {len(luck['steps'])} recorded steps")
    scores = luck["scores"]
    return {"game": game_id, "seed": seed, "num_players": num_players, "scores": scores,
            "luck": [round(x, 3) for x in luck["total"]],
            "play": [round(score - x, 3) for score, x in zip(scores, luck["total"])],
            "setup": [round(x, 3) for x in luck["setup"]],
            "steps": [[round(x, 3) for x in step] for step in luck["steps"]]}


def luck_lines(report: dict) -> list[str]:
    """``seat 2: 31 points; luck +6.5; play 24.5``, one line per seat of a :func:`luck_report`."""
    return [f"seat {seat}: {score:g} points; luck {value:+.1f}; play {play:.1f}"
            for seat, (score, value, play) in enumerate(zip(report["scores"], report["luck"], report["play"]))]
