"""Dive! Diver! Die!: the worked examples of rules §8 and the flow of a game (setup, dives, end).

Rules: /work/shared/rules/dive_diver_die.md. Chance is fixed with a scripted random source.
"""

from __future__ import annotations

import pytest

from engines import IllegalAction
from tests.engines.dive_diver_die_support import (
    EXAMPLE_CLUES, GAME, act, bonus, choose_depths, duration, end_window, new_game, play,
    player, prepare, private, setup_script,
)

# Oxygen die sequence of §8, in order ((W) = Wall rolls).
EXAMPLE_ROLLS = [-1, -2, 0, -3, -1, -2, -3, -3, 1, -2, -1, -1, -1, 1, 0, -1, -1]


def example_state():
    """§8 up to the start of the dive phase (P1..P6 done)."""
    script = setup_script(2, removed=[[5, 9], [7, 10]], events=["wall_d", "toughest_diver"],
                          oxygenator=[5], clues=EXAMPLE_CLUES)
    script += [[6, 2], 3, 7] + EXAMPLE_ROLLS + ["T4"]
    state = new_game(2, script)
    return state


def test_the_worked_example_of_section_8_plays_out_step_by_step():
    state = example_state()
    # Setup and P2.
    assert private(state, 0)["hand"] == [1, 2, 3, 4, 6, 7, 8, 10]
    assert private(state, 1)["hand"] == [1, 2, 3, 4, 5, 6, 8, 9]
    assert private(state, 0)["events"] == ["wall_d"]
    assert private(state, 1)["events"] == ["toughest_diver"]
    view = state.spectator_view()
    assert view["board_clues"] == ["T3", "D5", "T6", "D4", "T2", "D6"]
    assert view["clue_supply"] == ["D2", "D3", "T4", "T5"]
    assert view["board_gold"] == [0, 0, 0, 3, 4, 5]
    assert view["start_player"] == 0 and state.to_act() == [0, 1]
    # P3, P4.
    prepare(state, (2, 7), (6, 4))
    assert private(state, 0)["hand"] == [1, 3, 4, 6, 8, 10]
    assert private(state, 1)["hand"] == [1, 2, 3, 5, 8, 9]
    assert state.full_view()["common_deck"] == [6, 2]
    assert state.spectator_view()["dive_pile"] == 73
    # P5, P6.
    choose_depths(state, 2, 2)
    assert state.spectator_view()["oxygen"] == 5
    assert state.spectator_view()["oxygenator_discard"] == [5]
    # T1 s0: window with wall_d on either seat.
    assert state.legal_actions(0) == [
        {"type": "play_event", "card": "wall_d", "target": 0},
        {"type": "play_event", "card": "wall_d", "target": 1},
        {"type": "end_window"},
    ]
    end_window(state, 0)
    # T1 moved s0 to d1 (O 4); T2 s1 has no window, d1 (O 2); T3 s0 window again.
    assert player(state, 0)["depth"] == 1 and player(state, 1)["depth"] == 1
    assert state.spectator_view()["oxygen"] == 2
    assert state.to_act() == [0]
    play(state, 0, "wall_d", target=0)
    # s0 reaches d2 with roll 0 and reveals its max card 7.
    assert state.spectator_view()["decision"] == "choose_duration"
    assert player(state, 0)["max_card"] == 7
    assert state.legal_actions(0) == [{"type": "choose_duration", "turns": t} for t in range(1, 8)]
    duration(state, 0, 4)
    # T4 s1 follows at once (no window): d2, roll -3, reveals 4.
    assert state.spectator_view()["oxygen"] == 2
    assert player(state, 0)["arrival"] == 1 and player(state, 0)["status"] == "searching"
    assert player(state, 0)["temp_clues"] == []            # group d2 waits for s1
    assert player(state, 1)["max_card"] == 4 and player(state, 1)["depth"] == 2
    duration(state, 1, 4)
    # T5..T13 are automatic (no card in s0's hand, Toughest Diver never legal for s1).
    assert state.is_terminal() is False
    view = state.spectator_view()
    # The dive ended: E1..E6 are done and dive 2 waits for the prepare decision.
    assert view["dive"] == 2 and view["phase"] == "prepare"
    assert state.rng.remaining == 0
    assert view["players"][0]["gold"] == 30 and view["players"][0]["clues"] == ["D5"]
    assert view["players"][1]["gold"] == 0 and view["players"][1]["clues"] == []
    assert view["board_clues"] == ["T3", "T4", "T6", "D4", "T2", "D6"]
    assert view["clue_supply"] == ["D2", "D3", "T5"]
    assert view["oxygenator_count"] == 9 and view["oxygenator_discard"] == [5]
    assert view["common_revealed"] == [6, 2]
    assert view["event_discard"] == [{"seat": 0, "dive": 1, "card": "wall_d", "target": 0}]
    assert view["max_cards_discarded"] == [{"seat": 1, "value": 4, "dive": 1},
                                           {"seat": 0, "value": 7, "dive": 1}]
    assert view["start_player"] == 1
    # P2 of dive 2 drew one event card each (deck 50 - 2 - 2).
    assert view["event_deck_count"] == 46
    assert private(state, 0)["hand"] == [1, 3, 4, 6, 8, 10]
    assert private(state, 1)["hand"] == [1, 2, 3, 5, 8, 9]
    assert private(state, 1)["events"][0] == "toughest_diver"
    # The chance log holds the oxygen die sequence of §8 in order.
    log = state.full_view()["history"]
    rolls = [entry[2] for entry in log if entry[0] in ("roll", "wall")]
    assert rolls == EXAMPLE_ROLLS


def test_the_worked_example_of_section_8_matches_the_table_turn_by_turn():
    """The public dive record of §8, row by row (T1..T13, then E1..E6)."""
    state = example_state()
    prepare(state, (2, 7), (6, 4))
    choose_depths(state, 2, 2)
    end_window(state, 0)
    play(state, 0, "wall_d", target=0)
    duration(state, 0, 4)
    duration(state, 1, 4)
    assert state.full_view()["history"] == [
        ["oxygenator", 5, 5],                                    # P6: O = 5
        ["move", 0, 1], ["roll", 0, -1, 4],                      # T1 s0
        ["move", 1, 1], ["roll", 1, -2, 2],                      # T2 s1
        ["move", 0, 2], ["roll", 0, 0, 2], ["arrive", 0, 7],     # T3 s0
        ["duration", 0, 4, 5],
        ["move", 1, 2], ["roll", 1, -3, 2], ["arrive", 1, 4],    # T4 s1
        ["duration", 1, 4, 2], ["bonus", 0, "clue", "D5"],
        ["search", 0, 3], ["roll", 0, -1, 1], ["wall", 0, -2], ["gold", 0, 4, 69],   # T5
        ["search", 1, 3], ["roll", 1, -3, -2], ["common", 6, 4], ["gold", 1, 2, 67],  # T6
        ["search", 0, 2], ["roll", 0, -3, 1], ["wall", 0, 1], ["gold", 0, 1, 66],   # T7
        ["search", 1, 2], ["roll", 1, -2, -1], ["common", 2, 1], ["gold", 1, 2, 64],  # T8
        ["search", 0, 1], ["roll", 0, -1, 0], ["wall", 0, -1], ["gold", 0, 3, 61],  # T9
        ["search", 1, 1], ["roll", 1, -1, -1], ["out", 1, 1, 65],                   # T10
        ["search", 0, 0], ["roll", 0, 1, 2], ["wall", 0, 0], ["gold", 0, 2, 63],    # T11
        ["ascent", 0, 1], ["roll", 0, -1, 1],                                       # T12
        ["move", 0, 0], ["roll", 0, -1, 0], ["surface", 0, 10],                     # T13
        ["sole_survivor", 0], ["clue_refill", 2, "T4"],                             # E1, E3
    ]
