"""V for luck accounting (workers.luck): each seat's expected final score, from the full state.

V reads features of the position seen from one seat (below, per game). Where ``luck_weights.json``
beside this module has a *network* for the game and seat count, V is a one-hidden-layer network of
the game's network features (``NETWORK_FEATURES``): its hidden layer learned from the final
scores of games of the built-in heuristic, its output layer then chosen to make ``score - luck``
as steady as it can on further games (``bench/luck_fit.py`` writes both, and says why). Otherwise
V is linear in the game's ``FEATURES`` with least-squares weights from the same file. At the end
of a game V is the score itself, so a seat's luck plus what V expected at the start plus what its
decisions gained add up to its score.

A game or seat count with neither uses the running score as V (the points banked so far): still
unbiased luck, which then sees only chance whose effect on the score is immediate. V must be
deterministic and cheap: luck reads it a few thousand times per game.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

import numpy as np

from engines.deep_dive.state import ROUND_LIMIT
from engines.deep_sea_adventure.state import CHIP_LEVEL, CHIP_VALUE, NUM_ROUNDS
from engines.dive_diver_die.state import DIVES, EVENT_CARDS, JEWEL_VALUE

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


def dsa_path_values(state) -> list[float]:
    """What each path space is worth as far as anyone has seen: a stack's chips (dropped by divers,
    so seen) at their values, a lone chip never taken at the mean of the lone chips of its level.

    A lone chip's value stays hidden until a seat takes it, and its luck is counted then
    (``dsa_reveals``); were V to read the value before, the same luck would also move V when a
    diver lands on the chip, and be counted twice. (A chip dropped alone is taken for unseen: rare,
    and V may read anything; it only costs a little steadiness.)"""
    totals = [0.0] * 5
    counts = [0] * 5
    for item in state.path:
        if item is not None and len(item) == 1:
            level = CHIP_LEVEL[item[0]]
            totals[level] += CHIP_VALUE[item[0]]
            counts[level] += 1
    return [0.0 if item is None
            else totals[CHIP_LEVEL[item[0]]] / counts[CHIP_LEVEL[item[0]]] if len(item) == 1
            else float(sum(CHIP_VALUE[chip] for chip in item))
            for item in state.path]


def dsa_network_features(state) -> list[list[float]]:
    """``dsa_features`` and what a network can use beyond them: who moves and what it decides on,
    the chips under each diver and deeper, every diver's direction, load and the others' loads."""
    base = dsa_features(state)
    n = state.num_players
    loads = [len(items) for items in state.carried]
    active = [not returned for returned in state.returned]
    carried = [sum(CHIP_VALUE[chip] for item in items for chip in item) for items in state.carried]
    path = state.path
    values = dsa_path_values(state)
    length = len(path)
    rows = []
    for seat in range(n):
        moving = seat == state.current
        position = state.pos[seat]
        here = path[position - 1] if 0 < position <= length and path[position - 1] is not None else ()
        here_value = values[position - 1] if here else 0.0
        deeper = [item for item in path[position:] if item is not None]
        deepest_other = max((state.pos[other] for other in range(n) if other != seat), default=0)
        rows.append(base[seat] + [
            float(moving), float(moving and state.decision == "direction"),
            float(moving and state.decision == "search"), moving * here_value, moving * len(here), here_value,
            float(state.up[seat]), float(state.returned[seat]), position, loads[seat], carried[seat],
            state.air, state.round,
            sum(loads[other] for other in range(n) if other != seat and active[other]),
            sum(carried[other] for other in range(n) if other != seat and active[other]),
            sum(active), sum(values[position:]), len(deeper), length,
            (seat - state.current) % n, position - deepest_other,
        ])
    return rows


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


_DIVING = ("descending", "searching", "ascending")


def ddd_network_features(state) -> list[list[float]]:
    """``ddd_features`` and the jewel's prospects (50 points: the largest single swing of a score),
    the clues on the board (and whether the one at the seat's depth would give it a kind it lacks),
    the dive, the seat's plans this dive, its gold against the others' and its event cards by kind
    (dealt cards are counted as luck when dealt: ``LuckModel.decks``)."""
    base = ddd_features(state)
    open_jewel = bool(state.jewel_on and state.jewel_holder is None)
    clues = [seat.clues + [clue for clue, _ in seat.temp_clues] for seat in state.seats]
    qualifies = [open_jewel and seat.status in _DIVING and f"D{seat.chosen}" in held and f"T{seat.duration}" in held
                 for seat, held in zip(state.seats, clues)]
    golds = [seat.gold for seat in state.seats]
    board = [clue for clue in state.board_clues if clue is not None] if open_jewel else []
    board_depth = sum(1 for clue in board if clue[0] == "D")
    rows = []
    for index, seat in enumerate(state.seats):
        held = clues[index]
        depth_clues = sum(1 for clue in held if clue[0] == "D")
        duration_clues = len(held) - depth_clues
        diving = seat.status in _DIVING
        here = state.board_clues[seat.chosen] if open_jewel and seat.chosen and diving else None
        lacking = {"D"} if not depth_clues else set()
        lacking |= {"T"} if not duration_clues else set()
        rows.append(base[index] + [
            float(open_jewel), open_jewel * depth_clues, open_jewel * duration_clues,
            float(open_jewel and depth_clues > 0 and duration_clues > 0), float(qualifies[index]),
            float(open_jewel and f"D{seat.chosen}" in held), float(open_jewel and f"T{seat.duration}" in held),
            sum(qualifies) - qualifies[index], float(seat.jewel),
            float(state.dive == 1), float(state.dive == 2), float(state.dive == 3), float(state.dive == 4),
            (seat.chosen or 0) * diving, (seat.duration or 0) * diving, seat.tokens * diving, float(seat.arm),
            float(seat.perilous), float(seat.wall is not None), float(seat.swordfish is not None),
            len(seat.hand), seat.gold - max(gold for other, gold in enumerate(golds) if other != index),
            seat.found * diving * (state.oxygen > 0), float(diving and state.oxygen <= 0),
            board_depth, len(board) - board_depth, float(here is not None and here[0] in lacking),
            float(here is not None), sum(1 for clue in board if clue[0] in lacking),
        ] + [float(seat.events.count(card)) for card, _ in EVENT_CARDS])
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


# What a network reads, per game: a superset of FEATURES where the network gains from more.
NETWORK_FEATURES = {
    "deep_sea_adventure": dsa_network_features,
    "dive_diver_die": ddd_network_features,
    "deep_dive": deep_dive_features,
}


class Network:
    """A one-hidden-layer network from a feature row to a final score: standardise each feature,
    ``hidden = max(0, x W + b)``, ``V = hidden . w + bias``.

    ``spec``: ``{"mean": [F], "scale": [F], "hidden_weights": [F][H], "hidden_bias": [H],
    "output_weights": [H], "output_bias": float}``."""

    def __init__(self, spec: dict):
        self.mean = np.asarray(spec["mean"], dtype=float)
        self.scale = np.asarray(spec["scale"], dtype=float)
        self.hidden_weights = np.asarray(spec["hidden_weights"], dtype=float)
        self.hidden_bias = np.asarray(spec["hidden_bias"], dtype=float)
        self.output_weights = np.asarray(spec["output_weights"], dtype=float)
        self.output_bias = float(spec["output_bias"])
        width, hidden = self.hidden_weights.shape
        if self.mean.shape != (width,) or self.scale.shape != (width,) or self.hidden_bias.shape != (hidden,) \
                or self.output_weights.shape != (hidden,):
            raise ValueError("a network's weights do not fit together")

    def hidden(self, rows) -> np.ndarray:
        """The hidden layer's values of each row (one row per seat)."""
        x = (np.asarray(rows, dtype=float) - self.mean) / self.scale
        return np.maximum(x @ self.hidden_weights + self.hidden_bias, 0.0)

    def __call__(self, rows) -> list[float]:
        return (self.hidden(rows) @ self.output_weights + self.output_bias).tolist()


def read_stored(path: Path = WEIGHTS_FILE) -> tuple[dict, str]:
    """The weights file's contents and a digest of its bytes (``{}`` and the digest of nothing when
    the file is missing): read once, as the digest names what measured a luck (workers.luck)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raw = b""
    return (json.loads(raw) if raw else {}), hashlib.blake2b(raw, digest_size=5).hexdigest()


def load_weights(path: Path = WEIGHTS_FILE) -> dict:
    """``{game_id: {str(num_players): [weight per feature]}}`` (empty when the file is missing)."""
    return read_stored(path)[0].get("weights", {})


def load_networks(path: Path = WEIGHTS_FILE) -> dict:
    """``{game_id: {str(num_players): network spec}}`` (empty when the file is missing)."""
    return read_stored(path)[0].get("networks", {})


class Value:
    """V of one game: ``value(state) -> [expected final score per seat]``."""

    def __init__(self, game_id: str, weights: dict, networks: dict | None = None):
        self.game_id = game_id
        self.features = FEATURES[game_id]
        self.weights = {int(n): list(w) for n, w in weights.items()}
        self.network_features = NETWORK_FEATURES.get(game_id)
        self.networks = {int(n): Network(spec) for n, spec in (networks or {}).items()}
        if self.networks and self.network_features is None:
            raise ValueError(f"{game_id} has networks but no network features")

    def __call__(self, state) -> list[float]:
        if state.is_terminal():
            return [float(score) for score in state.result()["scores"]]
        network = self.networks.get(state.num_players)
        if network is not None and self.network_features is not None:
            return network(self.network_features(state))
        rows = self.features(state)
        weights = self.weights.get(state.num_players)
        if weights is None:
            return [row[0] for row in rows]
        return [sum(w * f for w, f in zip(weights, row)) for row in rows]


_STORED, WEIGHTS_DIGEST = read_stored()
VALUES = {game_id: Value(game_id, _STORED.get("weights", {}).get(game_id, {}), _STORED.get("networks", {}).get(game_id))
          for game_id in FEATURES}
# Hidden values revealed by a decision, not a draw (workers.luck.LuckModel.reveals).
REVEALS = {"deep_sea_adventure": dsa_reveals}
