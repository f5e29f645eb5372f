"""Deep Sea Adventure engine: the worked examples (rules section 8) and one scenario per decision D1..D19.

Chance is fixed with a ScriptedRandom: the four level shuffles first (a prefix of the wanted
order), then one rng.random() entry per die, die A before die B (``scripted(1, 2)`` writes
the faces; the support module turns them into the floats the engine reads).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engines import IllegalAction, ScriptedRandom
from engines.deep_sea_adventure.state import CHIP_LEVEL, CHIP_VALUE
from tests.engines.conformance import random_playout
from tests.engines.deep_sea_adventure_support import (
    GAME,
    act,
    chip,
    legal_types,
    levels_of,
    position,
    scripted,
)

BLANK = []


OBSERVATION_KEYS = {
    "me", "round", "air", "current_seat", "decision", "start_seat", "return_order", "last_roll",
    "seat", "dice", "moves", "path", "blank", "levels", "divers", "position", "direction",
    "returned", "carried", "secured_levels", "my_secured_values",
    # events: the public log since the seat's previous decision
    "events", "type", "action", "forced", "item", "next_start_seat", "dropping_seats",
}


def all_keys(value) -> set:
    """Every dict key anywhere inside ``value``."""
    if isinstance(value, dict):
        return set(value).union(*(all_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(all_keys(v) for v in value))
    return set()


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


# --- Section 7, one scenario per decision ----------------------------------------------------

def test_d1_seat_0_starts_round_1():
    state = GAME.new_state(4, rng=scripted(1, 1))
    view = state.spectator_view()
    assert view["start_seat"] == 0 and state.to_act() == [0]
    assert view["log"] == [{"event": "roll", "seat": 0, "dice": [1, 1], "moves": 2}]
    assert [diver["position"] for diver in view["divers"]] == [2, 0, 0, 0]


def test_d2_chips_have_the_published_values_and_blank_markers_never_run_out():
    initial = GAME.new_state(2, seed=3).full_view()["initial_path"]
    assert [chip["level"] for chip in initial] == [1] * 8 + [2] * 8 + [3] * 8 + [4] * 8
    for level in range(1, 5):
        values = sorted(chip["value"] for chip in initial if chip["level"] == level)
        base = 4 * (level - 1)
        assert values == [base, base, base + 1, base + 1, base + 2, base + 2, base + 3, base + 3]
    assert sum(chip["value"] for chip in initial) == 240
    # More than the box's 12 blank markers are on the path, and a take still makes one more.
    path = [None] * 13 + [[chip(2, 4)]]
    state = position(2, path=path, current=0, decision="search", divers=[{"pos": 14}, {"returned": True}],
                     return_order=[1], dice=[1, 1])
    act(state, 0, "take")
    assert all(space["blank"] for space in state.observation(0)["path"])


def test_d3_the_air_is_full_again_at_the_start_of_every_round():
    seen_rounds = 0
    for seed in range(10):
        last_round = None
        for _, obs in playout_states(3, seed):
            if obs["round"] != last_round:
                # Nobody can have taken anything before the first decision of a round.
                assert obs["air"] == 25
                last_round = obs["round"]
                seen_rounds += obs["round"] > 1
    assert seen_rounds > 0


def test_d4_the_air_is_reduced_before_the_direction_decision():
    state = position(2, path=[[chip(1, 0)], None, [chip(1, 1)], [chip(1, 2)]], air=20, current=1,
                     decision="search", divers=[{"pos": 2, "carried": [[chip(1, 3)], [chip(2, 4)]]}, {"pos": 1}])
    act(state, 1, "pass")
    obs = state.observation(0)
    assert obs["decision"] == "direction" and obs["air"] == 18


def test_d5_the_turn_that_empties_the_air_is_played_in_full_and_can_bring_the_chips_home():
    # Seat 0 is on space 1 going up with one item; the air is 1. Seat 1 passes on space 3.
    state = position(2, path=[None, [chip(1, 1)], [chip(1, 2)]], air=1, current=1, decision="search",
                     divers=[{"pos": 1, "up": True, "carried": [[chip(1, 3)]]}, {"pos": 3, "carried": [[chip(1, 0)]]}],
                     dice=[1, 1, 2, 2])
    act(state, 1, "pass")
    # Seat 0's turn: air 1 -> 0 (last turn), roll 1+1, m = 1: it reaches the submarine.
    obs = state.observation(0)
    assert obs["round"] == 2 and obs["air"] == 25
    assert obs["divers"][0]["secured_levels"] == [1] and obs["my_secured_values"] == [3]
    # Seat 1 did not return: its chip was dropped onto a new space at the end of the path.
    assert levels_of(obs) == [[1], [1], [1]]
    assert obs["start_seat"] == 1  # the deepest diver left on the path


def test_d5_a_seat_may_still_turn_back_on_the_turn_that_empties_the_air():
    state = position(2, path=[None, None, [chip(1, 2)], [chip(1, 3)]], air=2, current=1, decision="search",
                     divers=[{"pos": 2, "carried": [[chip(1, 0)], [chip(1, 1)]]}, {"pos": 3}], dice=[3, 3, 1, 1])
    act(state, 1, "pass")
    obs = state.observation(0)
    assert obs["air"] == 0 and obs["decision"] == "direction"
    act(state, 0, "turn_back")
    # m = 6 - 2 = 4: space 1, then the submarine: both chips are secured before the round ends.
    final = state.full_view()
    assert final["divers"][0]["secured_levels"] == [1, 1]
    assert final["round"] == 2 and final["start_seat"] == 1


def test_step_1_clamps_the_air_at_0_when_the_load_is_larger_than_the_air_left():
    # Seat 0 carries 3 items with 2 air left: the air becomes 0 (not -1) and this is the last turn.
    state = position(2, path=[[chip(1, 0)], [chip(1, 1)], [chip(1, 2)], None, None, None], air=2,
                     current=1, decision="search", dice=[3, 3, 1, 1],
                     divers=[{"pos": 6, "up": True, "carried": [[chip(1, 3)], [chip(2, 4)], [chip(2, 5)]]},
                             {"pos": 1}])
    act(state, 1, "pass")
    # Going up, so no direction decision; roll 3+3, m = 6 - 3 = 3: from 6 to 3, a treasure space.
    obs = state.observation(0)
    assert obs["air"] == 0 and obs["decision"] == "search" and obs["divers"][0]["position"] == 3
    assert state.spectator_view()["air"] == 0 and state.full_view()["last_turn"] is True
    act(state, 0, "pass")
    obs = state.observation(0)
    assert obs["round"] == 2 and obs["air"] == 25
    assert obs["start_seat"] == 0  # the deeper of the two divers left on the path (3 against 1)
    # Seat 1, on the path with nothing to drop, is not a dropping seat.
    assert {"type": "round_end", "round": 1, "next_start_seat": 0, "dropping_seats": [0]} in obs["events"]
    assert levels_of(obs)[-1] == [1, 2, 2]  # its three chips dropped onto one new space
    assert obs["divers"][0]["position"] == 2 and obs["air"] == 25  # round 2: roll 1+1, load 0


def test_going_up_a_diver_skips_every_occupied_space_in_a_row_without_using_a_step():
    # Seats 1 and 2 stand on 4 and 3, right above seat 0 on 5.
    for faces, moves in (([1, 1], 1), ([1, 2], 2)):
        state = position(3, path=[[chip(1, 0)], [chip(1, 1)], [chip(1, 2)], [chip(1, 3)], None],
                         current=2, decision="search", dice=faces,
                         divers=[{"pos": 5, "up": True, "carried": [[chip(2, 4)]]}, {"pos": 4}, {"pos": 3}])
        act(state, 2, "pass")
        # m = A + B - 1: the first step passes over 4 and 3 and ends on 2, the second on 1.
        obs = state.observation(0)
        assert obs["last_roll"]["moves"] == moves and obs["divers"][0]["position"] == 3 - moves
        assert obs["decision"] == "search" and state.to_act() == [0]


def test_returning_secures_the_chips_in_carried_order_and_a_stack_in_its_own_order():
    # Seat 0 carries a level-2 chip, then a stack of a level-3 and a level-1 chip; seat 2 is back.
    state = position(3, path=[[chip(1, 0)], [chip(1, 1)], [chip(1, 2)]], current=1, decision="search",
                     dice=[3, 3, 1, 1], return_order=[2],
                     divers=[{"pos": 1, "up": True, "carried": [[chip(2, 6)], [chip(3, 9), chip(1, 2, 1)]]},
                             {"pos": 3}, {"returned": True}])
    act(state, 1, "pass")
    # Seat 0 rolls 3+3 and returns; seat 1 then must turn back from space 3 and rolls 1+1.
    obs = state.observation(0)
    assert obs["return_order"] == [2, 0] and state.to_act() == [1]
    assert {"type": "return", "seat": 0} in state.observation(1)["events"]
    assert obs["divers"][0]["secured_levels"] == [2, 3, 1]
    assert obs["my_secured_values"] == [6, 9, 2]
    assert state.observation(1)["divers"][0]["secured_levels"] == [2, 3, 1]
    assert state.observation(1)["my_secured_values"] == []


def test_d6_a_diver_carrying_nothing_may_turn_back():
    state = position(2, path=[None, [chip(1, 1)], [chip(1, 2)], [chip(1, 3)]], current=1, decision="search",
                     divers=[{"pos": 2}, {"pos": 3}], dice=[1, 1])
    act(state, 1, "pass")
    assert legal_types(state, 0) == ["continue", "turn_back"]
    act(state, 0, "turn_back")
    obs = state.observation(1)
    assert obs["divers"][0]["returned"] and obs["divers"][0]["secured_levels"] == []
    assert obs["return_order"] == [0]


def test_d7_a_diver_blocked_in_the_submarine_waits_without_deciding():
    # Both path spaces are occupied; seat 0 has not left the submarine.
    state = position(3, path=[[chip(1, 0)], [chip(1, 1)]], current=2, decision="search",
                     divers=[{}, {"pos": 1}, {"pos": 2}], dice=[3, 3, 1, 1, 1, 1, 1, 1])
    act(state, 2, "pass")
    # Seat 0: no direction decision, roll 3+3 but no free space: it stays, not returned, no search.
    # Seats 1 and 2 then have no deeper free space: forced turn back, and both return.
    # Seat 0 tries again: roll 1+1 takes it to space 2, where it searches.
    view = state.spectator_view()
    seat0 = [e for e in view["log"] if e.get("seat") == 0]
    assert seat0[0] == {"event": "roll", "seat": 0, "dice": [3, 3], "moves": 6}
    assert seat0[1]["event"] == "roll"
    assert view["return_order"] == [1, 2]
    assert view["divers"][0]["position"] == 2 and view["divers"][0]["direction"] == "down"
    assert view["air"] == 25
    assert state.to_act() == [0] and legal_types(state, 0) == ["pass", "take"]


def test_d8_a_diver_stops_on_the_last_space_and_must_turn_back_next_turn():
    state = position(2, path=[None, None, [chip(1, 2)], [chip(1, 3)]], current=0, decision="direction",
                     divers=[{"pos": 2}, {"returned": True}], return_order=[1], dice=[3, 3, 1, 1])
    act(state, 0, "continue")
    obs = state.observation(0)
    assert obs["divers"][0]["position"] == 4  # 6 moves, 2 used: the rest are lost
    act(state, 0, "take")
    # Next turn (seat 0 again, the only diver left): air 24, forced turn back, roll 1+1 -> m = 1.
    obs = state.observation(0)
    assert obs["air"] == 24
    assert obs["divers"][0]["direction"] == "up" and obs["divers"][0]["position"] == 3
    log = state.spectator_view()["log"]
    assert {"event": "action", "seat": 0, "action": {"type": "turn_back"}, "forced": True} in log


def test_d8_the_turn_back_is_forced_when_every_deeper_space_is_occupied_not_only_space_l():
    # Seat 0 on 3 going down; seats 1 and 2 hold 4 and 5, the whole path below it.
    state = position(3, path=[[chip(1, 0)], None, None, [chip(1, 1)], [chip(1, 2)]], current=2,
                     decision="search", dice=[1, 1],
                     divers=[{"pos": 3}, {"pos": 4}, {"pos": 5}])
    act(state, 2, "pass")
    # No direction decision: turn_back is applied, then 1+1 takes seat 0 up over 2 to space 1.
    obs = state.observation(0)
    assert obs["decision"] == "search" and state.to_act() == [0]
    assert obs["divers"][0]["direction"] == "up" and obs["divers"][0]["position"] == 1
    assert {"type": "action", "seat": 0, "action": {"type": "turn_back"}, "forced": True} in obs["events"]


def test_d9_only_decisions_with_a_choice_are_asked_and_forced_actions_are_logged():
    forced = 0
    for num_players in (2, 6):
        for seed in range(5):
            state = GAME.new_state(num_players, seed=seed)
            random_playout(state, seed)
            log = state.spectator_view()["log"]
            forced += sum(1 for e in log if e["event"] == "action" and e["forced"])
    assert forced > 0
    for seed in range(5):
        for state, _ in playout_states(4, seed):
            assert len(state.legal_actions(state.to_act()[0])) >= 2


def test_d10_a_stack_is_taken_whole_counts_as_one_item_and_is_dropped_whole():
    stack = [chip(1, 0), chip(2, 5), chip(2, 6)]
    state = position(2, path=[None, stack], air=25, current=0, decision="search",
                     divers=[{"pos": 2, "up": True}, {"returned": True}], return_order=[1], dice=[1, 1] * 3)
    act(state, 0, "take")
    # Next turn: load 1 (the stack), so the air drops by 1 and the roll 1+1 gives m = 1.
    obs = state.observation(0)
    assert obs["divers"][0]["carried"] == [[1, 2, 2]]
    assert obs["air"] == 24 and obs["last_roll"]["moves"] == 1
    assert legal_types(state, 0) == ["pass", "drop 0"]
    act(state, 0, "drop", item=0)
    # Seat 0 then returns; in round 2 the stack is the whole path (space 2 was blank).
    view = state.full_view()
    assert view["round"] == 2
    assert [[c["id"] for c in space] for space in view["path_chips"]] == [stack]


def test_drop_i_lays_down_carried_item_i_and_keeps_the_others_in_order():
    # Example B's last turn, but seat 0 drops item 0 (X, level 1) instead of item 2.
    state, _ = example_b_state()
    obs = state.observation(0)
    assert obs["divers"][0]["carried"] == [[1], [2], [2]] and levels_of(obs)[3] == []
    state.apply({0: {"type": "drop", "item": 0}})
    # The round is over: space 4 (new space 3 after compaction) holds X; Y and Z were dropped at
    # the end of the path with seat 2's chips.
    final = state.full_view()
    assert [c["id"] for c in final["path_chips"][2]] == [X]
    assert [c["id"] for c in final["path_chips"][-2]] == [Y, Z, U]


def test_a_carried_stack_shows_its_levels_in_stack_order():
    stack = [chip(3, 9), chip(1, 2)]
    # After the take, seat 1 must turn back and returns (1+1); seat 0 then moves up to space 1.
    state = position(2, path=[None, stack], current=0, decision="search", dice=[1, 1, 1, 1],
                     divers=[{"pos": 2, "up": True}, {"pos": 1}])
    assert levels_of(state.observation(1))[1] == [3, 1]
    act(state, 0, "take")
    obs = state.observation(1)
    assert obs["decision"] == "search" and obs["divers"][0]["position"] == 1
    assert obs["divers"][0]["carried"] == [[3, 1]] and levels_of(obs)[1] == []


def test_d11_round_end_drops_follow_carried_order_and_break_stacks_up():
    a, b, c, d, e = chip(1, 0), chip(2, 4), chip(2, 5), chip(3, 8), chip(4, 12)
    state = position(2, path=[None, [chip(1, 1)]], air=0, last_turn=True, current=0, decision="search",
                     divers=[{"pos": 1, "up": True, "carried": [[a], [b, c, d], [e]]}, {"returned": True}],
                     return_order=[1], dice=[1, 1])
    act(state, 0, "pass")
    view = state.full_view()
    assert view["round"] == 2
    chips = [[ch["id"] for ch in space] for space in view["path_chips"]]
    assert chips == [[chip(1, 1)], [a, b, c], [d, e]]


def test_d11_after_the_last_round_the_dropped_chips_lie_on_the_path_and_nobody_carries_them():
    a, b = chip(2, 4), chip(3, 8)
    state = position(2, path=[None, [chip(1, 1)]], round=3, air=0, last_turn=True, current=0,
                     decision="search", divers=[{"pos": 1, "up": True, "carried": [[a], [b]]},
                                                {"returned": True, "secured": [chip(1, 0)]}],
                     return_order=[1], dice=[])
    act(state, 0, "pass")
    assert state.is_terminal()
    assert state.observation(0)["divers"][0]["carried"] == []
    view = state.full_view()
    assert view["divers"][0]["carried_chips"] == []
    assert [[ch["id"] for ch in space] for space in view["path_chips"]] == [[chip(1, 1)], [a, b]]
    assert state.result()["scores"] == [0, 0]


def test_every_chip_is_in_exactly_one_place_at_every_step_and_after_the_end():
    for num_players in (2, 4, 6):
        for seed in range(15):
            state = GAME.new_state(num_players, seed=seed)
            chooser = random.Random(seed)
            while True:
                view = state.full_view()
                places = [ch["id"] for space in view["path_chips"] if space for ch in space]
                for diver in view["divers"]:
                    places += [ch["id"] for item in diver["carried_chips"] for ch in item]
                    places += [ch["id"] for ch in diver["secured_chips"]]
                assert sorted(places) == list(range(32)), (num_players, seed)
                if state.is_terminal():
                    break
                seat = state.to_act()[0]
                state.apply({seat: chooser.choice(state.legal_actions(seat))})


def test_d12_dropped_chips_start_new_spaces_and_never_top_up_older_stacks():
    old_stack = [chip(1, 0), chip(1, 1)]
    state = position(3, path=[None, [chip(2, 4)], old_stack], air=0, last_turn=True, current=0,
                     decision="search", return_order=[2], dice=[1, 1],
                     divers=[{"pos": 1, "up": True, "carried": [[chip(3, 8)]]},
                             {"pos": 2, "carried": [[chip(3, 9)], [chip(4, 12)], [chip(4, 13)]]},
                             {"returned": True}])
    act(state, 0, "pass")
    chips = [[ch["id"] for ch in space] for space in state.full_view()["path_chips"]]
    # Seat 0 (closest) drops first, seat 1's chips continue its pile up to 3, then a new pile.
    assert chips == [[chip(2, 4)], old_stack, [chip(3, 8), chip(3, 9), chip(4, 12)], [chip(4, 13)]]


def test_d13_the_deepest_diver_on_the_path_starts_the_next_round():
    state = position(3, path=[None, [chip(1, 1)], [chip(1, 2)], [chip(1, 3)]], air=0, last_turn=True,
                     current=1, decision="search", return_order=[0], dice=[1, 1],
                     divers=[{"returned": True}, {"pos": 2, "carried": [[chip(1, 0)]]}, {"pos": 4}])
    act(state, 1, "pass")
    assert state.spectator_view()["start_seat"] == 2


def test_d13_otherwise_the_last_diver_back_starts_and_one_waiting_in_the_submarine_never_does():
    # Seat 1 is blocked in the submarine (both spaces are occupied) and never leaves.
    state = position(3, path=[None, [chip(1, 1)]], air=1, current=0, decision="search",
                     divers=[{"pos": 1, "up": True, "carried": [[chip(1, 0)]]}, {}, {"pos": 2, "up": True}],
                     dice=[1, 1, 1, 1, 1, 1, 1, 1])
    act(state, 0, "pass")
    # Seat 1 blocked; seat 2 returns (space 1 skipped); seat 0: air 0, returns on its last turn.
    view = state.spectator_view()
    assert view["round"] == 2
    assert view["start_seat"] == 0
    assert [e for e in view["log"] if e["event"] == "round_end"][0]["next_start_seat"] == 0
    assert view["current_seat"] == 0 and view["divers"][0]["position"] == 1


def test_d14_a_seat_sees_the_values_of_its_own_secured_chips_only():
    mine, theirs = chip(4, 15, 1), chip(3, 10)
    state = position(2, path=[None, [chip(1, 1)]], current=0, decision="search", return_order=[1],
                     divers=[{"pos": 1, "up": True, "carried": [[mine]]}, {"returned": True, "secured": [theirs]}],
                     dice=[3, 3, 1, 1])
    act(state, 0, "pass")  # seat 0 returns; both are back, so round 2 starts
    obs0, obs1 = state.observation(0), state.observation(1)
    assert obs0["my_secured_values"] == [15] and obs1["my_secured_values"] == [10]
    assert obs0["divers"][1]["secured_levels"] == [3] and obs1["divers"][0]["secured_levels"] == [4]
    for obs in (obs0, obs1):
        assert all_keys(obs) <= OBSERVATION_KEYS  # no chip ids or values anywhere else


def test_d15_equal_scores_are_broken_by_level_4_then_3_2_1_counts():
    state = position(3, path=[[chip(1, 0)]], current=0, decision=None, round=3, divers=[
        {"returned": True, "secured": [chip(2, 4), chip(2, 5), chip(1, 3)]},   # 12: L2 x2, L1
        {"returned": True, "secured": [chip(4, 12)]},                          # 12: L4
        {"returned": True, "secured": [chip(3, 8), chip(2, 4, 1)]},            # 12: L3, L2
    ])
    assert state.result()["ranks"] == [3, 1, 2]


def test_d15_the_level_1_count_decides_when_score_and_levels_4_to_2_are_equal():
    # A level-1 chip of value 0 adds nothing to the score: only the last key tells them apart.
    state = position(3, path=[[chip(1, 1)]], current=0, decision=None, round=3, divers=[
        {"returned": True, "secured": [chip(2, 5), chip(1, 0)]},      # 5: L2, L1
        {"returned": True, "secured": [chip(2, 5, 1)]},               # 5: L2
        {"returned": True, "secured": [chip(2, 4), chip(1, 0, 1), chip(1, 1)]},  # 5: L2, L1 x2
    ])
    result = state.result()
    assert result["scores"] == [5, 5, 5]
    assert result["ranks"] == [2, 3, 1]


def test_a_diver_that_drowned_in_the_last_round_is_back_at_position_0_not_returned():
    """The compaction renumbers the path (here 3 spaces become 2): the diver's old space 3
    no longer exists, so after the end it is in the submarine with ``returned`` false."""
    a = chip(2, 4)
    state = position(2, path=[[chip(1, 1)], None, None], round=3, air=0, last_turn=True, current=0,
                     decision="search", divers=[{"pos": 3, "up": True, "carried": [[a]]},
                                                {"returned": True}],
                     return_order=[1], dice=[])
    act(state, 0, "pass")
    assert state.is_terminal()
    for view in (state.spectator_view(), state.full_view(), state.observation(0), state.observation(1)):
        assert len(view["path"]) == 2
        assert [(d["position"], d["returned"]) for d in view["divers"]] == [(0, False), (0, True)]


def test_no_view_ever_shows_a_diver_beyond_the_path():
    for num_players in (2, 3, 6):
        for seed in range(25):
            state = GAME.new_state(num_players, seed=seed)
            chooser = random.Random(seed)
            while True:
                views = [state.spectator_view(), state.full_view()]
                views += [state.observation(seat) for seat in range(num_players)]
                for view in views:
                    assert all(0 <= d["position"] <= len(view["path"]) for d in view["divers"]), (
                        num_players, seed, [d["position"] for d in view["divers"]], len(view["path"]))
                if state.is_terminal():
                    break
                seat = state.to_act()[0]
                state.apply({seat: chooser.choice(state.legal_actions(seat))})
            assert all(d["position"] == 0 for d in state.spectator_view()["divers"])


def test_d16_an_empty_path_after_compaction_ends_the_game_early():
    state = position(2, path=[None], current=0, decision="search", return_order=[1],
                     divers=[{"pos": 1, "up": True, "carried": [[chip(2, 7)]]}, {"returned": True}],
                     dice=[1, 1])
    act(state, 0, "pass")
    assert state.is_terminal() and state.to_act() == []
    obs = state.observation(0)
    assert obs["round"] == 1 and obs["path"] == []
    assert obs["decision"] is None and obs["current_seat"] is None
    assert state.result()["scores"] == [7, 0]


def test_d17_setup_shuffles_the_four_levels_then_each_roll_is_die_a_then_die_b():
    rng = scripted(fallback=4)
    state = GAME.new_state(3, rng=rng)
    assert rng.calls[:4] == ["shuffle(<8 items>)"] * 4
    assert set(rng.calls[4:]) == {"random()"}
    rolls = [e for e in state.spectator_view()["log"] if e["event"] == "roll"]
    assert len(rng.calls) == 4 + 2 * len(rolls)
    # Die A comes first; the lowest and highest random numbers give faces 1 and 3.
    state = GAME.new_state(2, rng=ScriptedRandom([[], [], [], [], 0.0, 0.9999]))
    assert state.spectator_view()["last_roll"] == {"seat": 0, "dice": [1, 3], "moves": 4}
    faces = Counter()
    for seed in range(20):
        state = random_playout(GAME.new_state(4, seed=seed), seed)
        for e in state.spectator_view()["log"]:
            if e["event"] == "roll":
                faces.update(e["dice"])
    assert set(faces) == {1, 2, 3}
    assert max(faces.values()) < 1.2 * min(faces.values())  # each face a third of the time


def test_d18_only_divers_still_out_take_turns_in_seat_order():
    state = position(4, path=[None, [chip(1, 1)], [chip(1, 2)], [chip(1, 3)]], current=0, decision="search",
                     divers=[{"pos": 2}, {"returned": True}, {"returned": True}, {}],
                     return_order=[1, 2], dice=[1, 1])
    act(state, 0, "pass")
    # Seats 1 and 2 are skipped; seat 3, in the submarine, takes its turn: 1+1 -> space 3 (2 is occupied).
    obs = state.observation(3)
    assert obs["last_roll"]["seat"] == 3 and obs["divers"][3]["position"] == 3
    assert state.to_act() == [3]


def test_d18_the_only_diver_still_out_plays_turn_after_turn():
    state = position(2, path=[None, [chip(1, 1)], [chip(1, 2)]], current=0, decision="search",
                     divers=[{"pos": 2, "carried": [[chip(1, 0)]]}, {"returned": True}], return_order=[1])
    act(state, 0, "take")
    assert state.to_act() == [0] and state.observation(0)["decision"] == "direction"


def test_d19_a_diver_that_did_not_move_may_still_take_the_treasure_it_stands_on():
    state = position(2, path=[None, None, [chip(2, 6)]], current=1, decision="search",
                     divers=[{"pos": 3, "up": True, "carried": [[chip(1, 0)], [chip(1, 1)], [chip(1, 2)]]},
                             {"pos": 1}], dice=[1, 1])
    act(state, 1, "pass")
    obs = state.observation(0)
    assert obs["last_roll"]["moves"] == 0 and obs["divers"][0]["position"] == 3
    assert legal_types(state, 0) == ["pass", "take"]
    act(state, 0, "take")
    assert state.observation(1)["divers"][0]["carried"] == [[1], [1], [1], [2]]


# --- Legality -----------------------------------------------------------------------------------

def test_it_rejects_a_drop_of_an_item_the_diver_does_not_carry_and_changes_nothing():
    state, _ = example_b_state()
    before = state.full_view()
    for bad in ({"type": "drop", "item": 3}, {"type": "take"}, {"type": "drop", "item": "2"},
                {"type": "continue"}):
        with pytest.raises(IllegalAction):
            state.apply({0: bad})
        assert state.full_view() == before
    with pytest.raises(IllegalAction):
        state.apply({1: {"type": "pass"}})
    assert state.legal_actions(1) == [] and state.legal_actions(2) == []
    assert state.full_view() == before


@pytest.mark.parametrize("bad", [
    {"type": "drop", "item": 2, "extra": 0}, {"type": "pass", "extra": None}, {"type": "drop"},
    {"type": "drop", "item": [2]}, {"type": "drop", "item": None}, {"item": 2}, {},
    "pass", None, [{"type": "pass"}],
])
def test_it_rejects_malformed_actions_and_changes_nothing(bad):
    state, _ = example_b_state()
    before = state.full_view()
    with pytest.raises(IllegalAction):
        state.apply({0: bad})
    assert state.full_view() == before and state.to_act() == [0]


@pytest.mark.parametrize("item", [True, 1.0])
def test_an_item_equal_to_a_legal_index_drops_that_item_and_records_a_plain_integer(item):
    # Python (and the bot protocol's legality check) finds {"item": true} and {"item": 1.0} in
    # the legal list; the state must then play, and log, the canonical action {"item": 1}.
    state, _ = example_b_state()
    twin = state.clone()
    state.apply({0: {"type": "drop", "item": item}})
    twin.apply({0: {"type": "drop", "item": 1}})
    assert state.full_view() == twin.full_view()
    logged = [e["action"] for e in state.full_view()["log"] if e["event"] == "action" and e["seat"] == 0]
    assert logged[-1] == {"type": "drop", "item": 1} and type(logged[-1]["item"]) is int


def test_a_mutated_legal_action_list_does_not_change_what_the_state_accepts():
    state, _ = example_a_state()
    legal = state.legal_actions(0)
    legal[0]["type"] = "take"
    legal.append({"type": "drop", "item": 0})
    assert state.legal_actions(0) == [{"type": "pass"}, {"type": "take"}]
    with pytest.raises(IllegalAction):
        state.apply({0: {"type": "drop", "item": 0}})


def test_a_game_lasts_three_rounds_unless_the_path_empties():
    for seed in range(20):
        state = random_playout(GAME.new_state(5, seed=seed), seed)
        view = state.full_view()
        assert view["round"] == 3 or view["path"] == []
        assert [e["round"] for e in view["log"] if e["event"] == "round_end"] == list(range(1, view["round"] + 1))
