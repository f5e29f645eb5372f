"""V for luck accounting (workers.luck): each seat's expected final score, from the full state.

V is linear in a few features of the position seen from one seat (below, per game), with weights
fitted by least squares to games of the built-in heuristic (against weaker copies of itself) and
stored in ``luck_weights.json`` beside this module (``bench/luck_fit.py`` writes it and prints how
well V predicts the final score). At the end of a game V is the score itself, so a seat's luck
plus what V expected at the start plus what its decisions gained add up to its score.

A game or seat count with no fitted weights uses the running score as V (the points banked so
far): still unbiased luck, which then sees only chance whose effect on the score is immediate.
V must be deterministic and cheap: luck reads it a few thousand times per game.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from engines.deep_dive.state import ROUND_LIMIT
from engines.deep_sea_adventure.state import CHIP_LEVEL, CHIP_VALUE, NUM_ROUNDS
from engines.dive_diver_die.state import DIVES, JEWEL_VALUE

WEIGHTS_FILE = Path(__file__).with_name("luck_weights.json")


# --- features: one list per seat; feature 0 is always the running score ---------------------
# Two dice showing 1, 1, 2, 2, 3, 3: P(A + B = total).
_DSA_ROLLS = {2: 1 / 9, 3: 2 / 9, 4: 3 / 9, 5: 2 / 9, 6: 1 / 9}


@cache
def _dsa_home(distance: int, load: int, turns: int) -> float:
    """P(a diver ``distance`` spaces from the submarine, carrying ``load`` items, gets home within
    ``turns`` of its own turns): each turn moves max(0, A + B - load) (other divers ignored)."""
    if distance <= 0:
        return 1.0
    if turns <= 0:
        return 0.0
    return sum(p * _dsa_home(distance - max(0, total - load), load, turns - 1) for total, p in _DSA_ROLLS.items())


def dsa_features(state) -> list[list[float]]:
    n = state.num_players
    loads = [len(items) for items in state.carried]
    per_cycle = sum(loads[seat] for seat in range(n) if not state.returned[seat])
    rounds_left = NUM_ROUNDS - state.round
    path_value = sum(CHIP_VALUE[chip] for item in state.path if item is not None for chip in item)
    rows = []
    for seat in range(n):
        secured = sum(CHIP_VALUE[chip] for chip in state.secured[seat])
        carried = sum(CHIP_VALUE[chip] for item in state.carried[seat] for chip in item)
        home = 1.0
        if carried and not state.returned[seat]:
            # Own turns the air allows: it falls by every active diver's load each cycle.
            turns = state.air / per_cycle if per_cycle else 30.0
            whole = min(30, int(turns))
            part = min(1.0, turns - whole)
            load, position = min(loads[seat], 12), min(state.pos[seat], 60)
            home = (1 - part) * _dsa_home(position, load, whole) + part * _dsa_home(position, load, whole + 1)
        out = not state.returned[seat]
        rows.append([
            secured, carried * home, carried * (1.0 - home), carried * out * (not state.up[seat]),
            rounds_left, rounds_left * path_value / n, loads[seat] * out, state.pos[seat] * out,
            float(state.round == 3), float(state.round == 2), 1.0,
        ])
    return rows


def dsa_reveals(state, memo: dict) -> list[list]:
    """Chips taken for the first time in the last step: the values of a level's chips are shuffled
    at the setup and stay hidden, so given everything revealed so far (every chip ever taken) a
    chip just taken is equally likely to hold the value of any chip of its level not taken yet.
    Each comes with the states where it is swapped with each of those (see LuckModel.reveals)."""
    taken = memo.setdefault("taken", set())
    held = {chip for items in state.carried for item in items for chip in item}
    held.update(chip for chips in state.secured for chip in chips)
    new = held - taken
    revealed = []
    if new:
        untaken = [item[0] for item in state.path
                   if item is not None and len(item) == 1 and item[0] not in taken and item[0] not in held]
        for chip in sorted(new):
            others = [other for other in untaken if CHIP_LEVEL[other] == CHIP_LEVEL[chip]]
            if others:
                revealed.append([state] + [_dsa_swapped(state, chip, other) for other in others])
        taken.update(new)
    return revealed


def _dsa_swapped(state, chip: int, other: int):
    """A copy of ``state`` with ``chip`` (held by a seat) and ``other`` (on the path) swapped."""
    def swap(item):
        return tuple(other if c == chip else chip if c == other else c for c in item)

    twin = state.clone()
    twin.path = [None if item is None else swap(item) for item in twin.path]
    twin.carried = [[swap(item) for item in items] for items in twin.carried]
    twin.secured = [[other if c == chip else c for c in chips] for chips in twin.secured]
    return twin


def ddd_features(state) -> list[list[float]]:
    dives_left = DIVES - state.dive
    divers = max(1, sum(1 for seat in state.seats if seat.status in ("descending", "searching", "ascending")))
    rows = []
    for index, seat in enumerate(state.seats):
        score = seat.gold + (JEWEL_VALUE if seat.jewel else 0)
        status = seat.status
        diver = status in ("descending", "searching", "ascending")
        hand = seat.hand
        hand_mean = sum(hand) / len(hand) if hand else 0.0
        rows.append([
            score, seat.found,
            seat.found * (status == "ascending"), seat.found * (status == "searching"),
            seat.found * (status == "descending"), float(status == "surfaced"), float(status == "out"),
            seat.bonus, state.pile * diver / divers, state.oxygen * diver, seat.depth * diver,
            dives_left, dives_left * hand_mean, len(seat.events), float(index == state.start), 1.0,
        ])
    return rows


def deep_dive_features(state) -> list[list[float]]:
    n = state.num_players
    hot = state._hot
    rnd, white, black, empty, water = hot[0], hot[3], hot[4], hot[5], hot[6]
    size = max(1, white + black + empty)
    whites, blacks, _ = state._opened()
    rounds_left = max(0, ROUND_LIMIT - rnd)
    rows = []
    for seat in range(n):
        shells = state.closed[seat]
        closed_white = shells.count("white")
        closed_black = shells.count("black")
        in_water = water >> seat & 1
        rows.append([
            whites[seat], closed_white, closed_black, len(shells) - closed_white - closed_black,
            closed_white * in_water, len(shells) * in_water, float(in_water), blacks[seat],
            white / size, black / size, min(rounds_left, 10) * white / size, 1.0,
        ])
    return rows


def divee_features(state) -> list[list[float]]:
    return [[float(score)] for score in state.scores]


def dive_features(state) -> list[list[float]]:
    if state.solo:
        return [[float(state.positions[0] - state.chief_position)]]
    return [[float(position)] for position in state.positions]


FEATURES = {
    "deep_sea_adventure": dsa_features,
    "dive_diver_die": ddd_features,
    "deep_dive": deep_dive_features,
    "divee": divee_features,
    "dive": dive_features,
}


def load_weights(path: Path = WEIGHTS_FILE) -> dict:
    """``{game_id: {str(num_players): [weight per feature]}}`` (empty when the file is missing)."""
    try:
        return json.loads(path.read_text())["weights"]
    except FileNotFoundError:
        return {}


class Value:
    """V of one game: ``value(state) -> [expected final score per seat]``."""

    def __init__(self, game_id: str, weights: dict):
        self.game_id = game_id
        self.features = FEATURES[game_id]
        self.weights = {int(n): list(w) for n, w in weights.items()}

    def __call__(self, state) -> list[float]:
        if state.is_terminal():
            return [float(score) for score in state.result()["scores"]]
        rows = self.features(state)
        weights = self.weights.get(state.num_players)
        if weights is None:
            return [row[0] for row in rows]
        return [sum(w * f for w, f in zip(weights, row)) for row in rows]


_WEIGHTS = load_weights()
VALUES = {game_id: Value(game_id, _WEIGHTS.get(game_id, {})) for game_id in FEATURES}
# Hidden values revealed by a decision, not a draw (workers.luck.LuckModel.reveals).
REVEALS = {"deep_sea_adventure": dsa_reveals}
