"""Deep Sea Adventure engine: the worked examples (rules section 8) and one scenario per decision D1..D19.

Chance is fixed with a ScriptedRandom: the four level shuffles first (a prefix of the wanted
order), then one entry per die face, die A before die B.
"""

from __future__ import annotations

import random

import pytest

from engines import IllegalAction, ScriptExhausted
from engines.deep_sea_adventure.state import CHIP_LEVEL, CHIP_VALUE
from tests.engines.conformance import random_playout
from tests.engines.deep_sea_adventure_support import (
    GAME, act, chip, legal_types, levels_of, position, scripted,
)

BLANK = []


def playout_states(num_players: int, seed: int):
    """Every decision point of a random game, as (state, observation of the seat to act)."""
    state = GAME.new_state(num_players, seed=seed)
    chooser = random.Random(seed)
    while not state.is_terminal():
        seat = state.to_act()[0]
        yield state, state.observation(seat)
        legal = state.legal_actions(seat)
        state.apply({seat: legal[chooser.randrange(len(legal))]})


# --- Section 8, worked examples ------------------------------------------------------------

def example_a_state():
    """Example A, played up to the end of its step 4 (spaces 1-4 hold values 2, 0, 3, 1)."""
    rng = scripted(1, 2, 2, 1, 1, 1, 3, 3,
                   level_orders=([chip(1, 2), chip(1, 0), chip(1, 3), chip(1, 1)], [], [], []))
    state = GAME.new_state(3, rng=rng)
    return state, rng


def test_example_a_the_opening_of_round_1():
    state, rng = example_a_state()
    # 1. Seat 0 rolls 1+2 and ends on space 3.
    obs = state.observation(0)
    assert obs["last_roll"] == {"seat": 0, "dice": [1, 2], "moves": 3}
    assert obs["divers"][0]["position"] == 3 and obs["air"] == 25
    assert legal_types(state, 0) == ["pass", "take"]
    act(state, 0, "take")
    # 2. Seat 1 rolls 2+1: spaces 1, 2, then 3 is occupied and skipped, so it ends on 4.
    obs = state.observation(1)
    assert obs["divers"][0]["carried"] == [[1]] and obs["path"][2] == {"blank": True, "levels": []}
    assert obs["last_roll"] == {"seat": 1, "dice": [2, 1], "moves": 3}
    assert obs["divers"][1]["position"] == 4
    assert legal_types(state, 1) == ["pass", "take"]
    act(state, 1, "pass")
    # 3. Seat 2 rolls 1+1 and ends on space 2.
    assert state.observation(2)["divers"][2]["position"] == 2
    act(state, 2, "take")
    # 4. Seat 0 (load 1): the air drops to 24 before its direction decision.
    obs = state.observation(0)
    assert obs["air"] == 24 and obs["decision"] == "direction"
    assert legal_types(state, 0) == ["continue", "turn_back"]
    act(state, 0, "turn_back")
    # Roll 3+3, m = 5: up from 3, space 2 (seat 2) is skipped, 1, then the submarine.
    mine, other = state.observation(0), state.observation(1)
    assert mine["last_roll"] == {"seat": 0, "dice": [3, 3], "moves": 5}
    assert mine["return_order"] == [0]
    assert mine["my_secured_values"] == [3]
    assert mine["divers"][0] == {"position": 0, "direction": "up", "returned": True,
                                 "carried": [], "secured_levels": [1]}
    assert other["my_secured_values"] == [] and other["divers"][0]["secured_levels"] == [1]
    assert state.observation(2)["my_secured_values"] == []
    # State afterwards.
    assert mine["air"] == 24
    assert mine["divers"][1] == {"position": 4, "direction": "down", "returned": False,
                                 "carried": [], "secured_levels": []}
    assert mine["divers"][2] == {"position": 2, "direction": "down", "returned": False,
                                 "carried": [[1]], "secured_levels": []}
    assert levels_of(mine)[:4] == [[1], BLANK, BLANK, [1]]
    assert state.to_act() == [1] and mine["current_seat"] == 1
    assert rng.remaining == 0


# Example B is reached by play: these turns lead to its starting position (round 1, air 3,
# seat 0 to play), with X, Y, Z, W, U and V taken from spaces 4, 10, 11, 2, 9 and 17.
X, Y, Z, W = chip(1, 1), chip(2, 6), chip(2, 7), chip(1, 0)
U, V = chip(2, 5), chip(3, 9)
EXAMPLE_B_SETUP = [
    # (seat, die A, die B, direction or None, search action)
    (0, 2, 2, None, "take"),            # seat 0 to space 4: takes X
    (1, 1, 1, None, "take"),            # seat 1 to space 2: takes W
    (2, 2, 3, None, "pass"),            # seat 2 to space 7 (2 and 4 are skipped)
    (0, 3, 3, "continue", "take"),      # seat 0 to space 10 (7 skipped): takes Y
    (1, 1, 2, "turn_back", None),       # seat 1 returns with W
    (2, 1, 1, "continue", "take"),      # seat 2 to space 9: takes U
    (0, 1, 2, "continue", "take"),      # seat 0 to space 11: takes Z
    (2, 1, 2, "continue", "pass"),      # seat 2 to space 12 (11 skipped)
    (0, 3, 3, "turn_back", "pass"),     # seat 0 up to space 8
    (2, 1, 2, "continue", "pass"),      # seat 2 to space 14
    (0, 1, 1, None, "pass"),            # seat 0 stays on 8 (m = 0)
    (2, 1, 2, "continue", "pass"),      # seat 2 to space 16
    (0, 3, 3, None, "pass"),            # seat 0 up to space 5
    (2, 1, 1, "continue", "take"),      # seat 2 to space 17: takes V
    (0, 1, 1, None, "pass"),            # seat 0 stays on 5
    (2, 1, 2, "continue", "pass"),      # seat 2 to space 18
]


def example_b_state(first_roll_of_round_2=(1, 1)):
    """Plays EXAMPLE_B_SETUP, then seat 0's last turn of Example B (roll 2+2, drop item 2)."""
    dice = [face for turn in EXAMPLE_B_SETUP for face in turn[1:3]] + [2, 2, *first_roll_of_round_2]
    rng = scripted(*dice, level_orders=([chip(1, 0, 1), W, chip(1, 1, 1), X], [U, Y, Z], [V], []))
    state = GAME.new_state(3, rng=rng)
    for seat, _, _, direction, search in EXAMPLE_B_SETUP:
        if direction:
            assert state.observation(seat)["decision"] == "direction"
            act(state, seat, direction)
        if search:
            assert state.observation(seat)["decision"] == "search"
            act(state, seat, search)
    return state, rng


def test_example_b_the_air_runs_out_then_drops_and_compaction():
    state, rng = example_b_state()
    # Seat 0's last turn has begun: air 3 - 3 = 0, roll 2+2, m = 1, from 5 to the blank space 4.
    obs = state.observation(0)
    assert obs["air"] == 0 and obs["round"] == 1
    assert obs["last_roll"] == {"seat": 0, "dice": [2, 2], "moves": 1}
    assert obs["divers"][0] == {"position": 4, "direction": "up", "returned": False,
                                "carried": [[1], [2], [2]], "secured_levels": []}
    assert obs["divers"][1]["returned"] and obs["divers"][1]["secured_levels"] == [1]
    assert obs["divers"][2] == {"position": 18, "direction": "down", "returned": False,
                                "carried": [[2], [3]], "secured_levels": []}
    assert [i + 1 for i, space in enumerate(obs["path"]) if space["blank"]] == [2, 4, 9, 10, 11, 17]
    assert legal_types(state, 0) == ["pass", "drop 0", "drop 1", "drop 2"]
    assert state.full_view()["divers"][0]["carried_chips"] == [
        [{"id": c, "level": CHIP_LEVEL[c], "value": CHIP_VALUE[c]}] for c in (X, Y, Z)]
    act(state, 0, "drop", item=2)
    # The round ended; round 2 has started with seat 2 (the deeper diver) and its first roll.
    view = state.full_view()
    assert view["round"] == 2 and view["start_seat"] == 2
    round_end = [e for e in view["log"] if e["event"] == "round_end"]
    assert round_end == [{"event": "round_end", "round": 1, "next_start_seat": 2, "dropping_seats": [0, 2]}]
    # Compaction: 29 spaces; new 3 is old 4 holding Z; P1 = [X, Y, U] and P2 = [V] at the end.
    chips = [None if space is None else [c["id"] for c in space] for space in view["path_chips"]]
    assert len(chips) == 29
    assert chips[2] == [Z]
    assert chips[27] == [X, Y, U] and chips[28] == [V]
    expected_levels = [[1]] * 2 + [[2]] + [[1]] * 4 + [[2]] * 5 + [[3]] * 7 + [[4]] * 8 + [[1, 2, 2], [3]]
    assert levels_of(view) == expected_levels
    # Round 2: air 25, seat 2 is the current seat (its first roll, 1+1, took it to space 2).
    assert view["air"] == 25 and view["current_seat"] == 2
    assert view["last_roll"] == {"seat": 2, "dice": [1, 1], "moves": 2}
    assert [d["position"] for d in view["divers"]] == [0, 0, 2]
    assert [d["direction"] for d in view["divers"]] == ["down"] * 3
    assert [d["carried"] for d in view["divers"]] == [[], [], []]
    assert [d["secured_levels"] for d in view["divers"]] == [[], [1], []]
    assert [[c["id"] for c in d["secured_chips"]] for d in view["divers"]] == [[], [W], []]
    assert state.to_act() == [2] and legal_types(state, 2) == ["pass", "take"]
    assert rng.remaining == 0


def test_example_c_blocked_movement_and_a_forced_turn_back():
    # Round 3, L = 5: space 1 blank. Seat 1 (on 5, load 1) finishes its turn with a pass, so
    # that seat 0's turn, where the example starts, begins through the public API.
    treasure = [[chip(1, 0)], [chip(1, 1)], [chip(2, 4)], [chip(3, 8)]]
    state = position(3, path=[None] + treasure, round=3, air=10, current=1, decision="search",
                     divers=[{"pos": 3}, {"pos": 5, "carried": [[chip(1, 2)]]}, {"returned": True}],
                     return_order=[2], dice=[3, 3, 1, 2])
    act(state, 1, "pass")
    # 1. Seat 0: load 0, the air stays 10; it chooses to continue.
    obs = state.observation(0)
    assert obs["air"] == 10 and obs["decision"] == "direction"
    assert legal_types(state, 0) == ["continue", "turn_back"]
    act(state, 0, "continue")
    # Roll 3+3, m = 6: one step to 4, nothing deeper is free (5 is occupied): 5 steps lost.
    obs = state.observation(0)
    assert obs["last_roll"] == {"seat": 0, "dice": [3, 3], "moves": 6}
    assert obs["divers"][0]["position"] == 4
    assert legal_types(state, 0) == ["pass", "take"]
    act(state, 0, "pass")
    # 2. Seat 1 (seat 2 has returned): air 10 -> 9, turn_back applied automatically.
    obs = state.observation(1)
    assert obs["air"] == 9
    assert obs["last_roll"] == {"seat": 1, "dice": [1, 2], "moves": 2}
    # Up from 5: 4 is occupied and skipped, so the first step ends on 3 and the second on 2.
    assert obs["divers"][1]["position"] == 2 and obs["divers"][1]["direction"] == "up"
    assert obs["decision"] == "search" and legal_types(state, 1) == ["pass", "take"]
    forced = [e for e in state.spectator_view()["log"] if e["event"] == "action" and e["seat"] == 1]
    assert forced[-1] == {"event": "action", "seat": 1, "action": {"type": "turn_back"}, "forced": True}


def test_example_d_final_ranking():
    state = position(3, path=[[chip(1, 0)]], current=0, decision=None, round=3, divers=[
        {"returned": True, "secured": [chip(4, 13), chip(1, 2)]},
        {"returned": True, "secured": [chip(3, 9), chip(2, 6)]},
        {"returned": True, "secured": [chip(4, 12), chip(1, 3)]},
    ])
    assert state.is_terminal() and state.to_act() == []
    result = state.result()
    assert result["scores"] == [15, 15, 15]
    assert result["ranks"] == [1, 3, 1]
    assert result["level_counts"] == [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1]]
