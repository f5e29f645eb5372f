"""Helpers for the Deep Sea Adventure tests: chip ids, scripted games and hand-made positions."""

from __future__ import annotations

from engines import ScriptedRandom, get_game
from engines.deep_sea_adventure import state as dsa

GAME = get_game("deep_sea_adventure")


def chip(level: int, value: int, copy: int = 0) -> int:
    """The id of a chip (each level holds two chips of every value; ``copy`` picks 0 or 1)."""
    base = 4 * (level - 1)
    assert base <= value < base + 4 and copy in (0, 1)
    return 8 * (level - 1) + 2 * (value - base) + copy


# The engine rolls a die with one rng.random() call: face f comes from any float in [(f-1)/3, f/3).
FACE_TO_RANDOM = {1: 0.0, 2: 0.4, 3: 0.7}


def dice_script(faces) -> list:
    """The rng.random() outcomes that roll these die faces, in order."""
    return [FACE_TO_RANDOM[face] for face in faces]


def scripted(*faces, level_orders=([], [], [], []), fallback=None) -> ScriptedRandom:
    """A script: the four level shuffles (prefixes of the wanted order), then die faces."""
    return ScriptedRandom([list(order) for order in level_orders] + dice_script(faces), fallback=fallback)


def act(state, seat: int, action_type: str, **fields) -> None:
    """Apply one action of ``seat`` after checking it is the seat to act."""
    assert state.to_act() == [seat], f"expected seat {seat} to act, got {state.to_act()}"
    state.apply({seat: {"type": action_type, **fields}})


def legal_types(state, seat: int) -> list:
    """The legal actions of ``seat`` written compactly: "pass", "take", "drop 0", ..."""
    return [a["type"] if "item" not in a else f"drop {a['item']}" for a in state.legal_actions(seat)]


def position(num_players: int, *, path: list, divers: list, current: int, decision: str,
             round: int = 1, air: int = 25, start_seat: int = 0, return_order=(), dice=(),
             last_turn: bool = False):
    """A state at a hand-made position where ``current`` has ``decision`` pending.

    Some worked examples start from positions that play reaches only after dozens of
    scripted turns (or never: Example C's 5-space path in round 3 with 3 seats). This writes
    the position into a fresh state's fields; every step after that goes through the
    public API. ``path`` holds lists of chip ids (or None for blank); ``divers`` holds
    dicts with ``pos``, ``up``, ``returned``, ``carried`` (lists of chip ids) and ``secured``.
    ``dice`` is the exact script of the die faces rolled from there on; ``last_turn`` marks the
    pending turn as the one that brought the air to 0.
    """
    state = GAME.new_state(num_players, rng=ScriptedRandom([], fallback=0))
    state.path = [None if item is None else tuple(item) for item in path]
    state.length = len(state.path)
    state.round = round
    state.air = air
    state.start_seat = start_seat
    state.current = current
    state.return_order = list(return_order)
    state.pos = [d.get("pos", 0) for d in divers]
    state.up = [d.get("up", False) for d in divers]
    state.returned = [d.get("returned", False) for d in divers]
    state.carried = [[tuple(item) for item in d.get("carried", [])] for d in divers]
    state.secured = [list(d.get("secured", [])) for d in divers]
    state.last_turn = last_turn
    state.game_over = decision is None
    state.decision = decision
    state.log = []
    state.last_roll = None
    state.initial_path = []
    if decision == "direction":
        state._legal = dsa.DIRECTION_ACTIONS
    elif decision == "search":
        here = state.path[state.pos[current] - 1]
        state._legal = dsa.TAKE_ACTIONS if here is not None else dsa.DROP_ACTIONS[len(state.carried[current])]
    else:
        state._legal = ()
    state.rng = ScriptedRandom(dice_script(dice))
    state._dice = [state.rng] * num_players   # every seat's dice stream plays this script
    return state


def levels_of(view: dict) -> list:
    """The path of a view as level lists, ``[]`` for a blank space."""
    return [space["levels"] for space in view["path"]]
