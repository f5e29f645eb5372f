"""Dive! Diver! Die!: the worked examples of rules §8 and the flow of a game (setup, dives, end).

Rules: /work/shared/rules/dive_diver_die.md. Chance is fixed with a scripted random source.
"""

from __future__ import annotations

import random

import pytest

from engines import IllegalAction
from tests.engines.dive_diver_die_support import (
    EXAMPLE_CLUES,
    GAME,
    act,
    bonus,
    choose_depths,
    decision,
    duration,
    end_window,
    history,
    log,
    new_game,
    pass_windows,
    play,
    player,
    prepare,
    private,
    setup_script,
    start_dive,
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


# --- setup and preparation (§3, P1..P6) -------------------------------------------------------

def test_setup_removes_two_cards_per_seat_and_deals_one_event_card_each_from_the_start_player():
    script = setup_script(3, removed=[[5, 9], [1, 10], [2, 3]],
                          events=["swordfish", "wall_d", "sabotage"], oxygenator=[4])
    state = new_game(3, script)
    assert [private(state, s)["hand"] for s in range(3)] == [
        [1, 2, 3, 4, 6, 7, 8, 10], [2, 3, 4, 5, 6, 7, 8, 9], [1, 4, 5, 6, 7, 8, 9, 10]]
    assert [private(state, s)["events"] for s in range(3)] == [["swordfish"], ["wall_d"], ["sabotage"]]
    view = state.spectator_view()
    assert view["event_deck_count"] == 47 and view["oxygenator_count"] == 10
    assert view["dive"] == 1 and view["start_player"] == 0 and view["phase"] == "prepare"
    assert [p["hand_size"] for p in view["players"]] == [8, 8, 8]
    assert [p["gold"] for p in view["players"]] == [0, 0, 0]
    assert state.full_view()["private"][0]["removed"] == [5, 9]


def test_D_prepare_lists_every_ordered_pair_and_consumes_both_cards():
    state = new_game(2, setup_script(2, events=["toughest_diver"] * 2) + [[], 5, 5])
    legal = state.legal_actions(0)
    assert len(legal) == 8 * 7
    assert legal[:2] == [{"type": "prepare", "oxygen": 3, "duration": 4},
                         {"type": "prepare", "oxygen": 3, "duration": 5}]
    assert legal[-1] == {"type": "prepare", "oxygen": 10, "duration": 9}
    assert {"type": "prepare", "oxygen": 5, "duration": 5} not in legal
    assert state.to_act() == [0, 1]
    with pytest.raises(IllegalAction):
        state.apply({0: legal[0]})                          # both seats decide together
    prepare(state, (3, 9), (10, 4))
    assert private(state, 0) == {"hand": [4, 5, 6, 7, 8, 10], "events": ["toughest_diver"],
                                 "max_card": 9, "contributed": 3}
    assert private(state, 1)["max_card"] == 4 and private(state, 1)["contributed"] == 10
    assert player(state, 1)["max_card_face_down"] is True and player(state, 1)["max_card"] is None
    assert state.spectator_view()["common_deck_count"] == 2
    assert state.full_view()["common_deck"] == [3, 10]       # shuffle scripted as "no change"


@pytest.mark.parametrize("dice,pile", [((3, 7), 73), ((7, 3), 73), ((0, 1), 10), ((0, 0), 100),
                                       ((9, 9), 99), ((5, 0), 50)])
def test_P4_the_treasure_dice_make_the_dive_pile(dice, pile):
    state = new_game(2, setup_script(2, events=["toughest_diver"] * 2) + [[], *dice])
    prepare(state, (3, 4), (3, 4))
    assert state.spectator_view()["dive_pile"] == pile


def test_D_choose_depth_is_asked_in_turn_from_the_start_player_and_is_public():
    state = new_game(3, setup_script(3, events=["toughest_diver"] * 3, oxygenator=[6]) + [[], 5, 5],
                     fallback=1)
    prepare(state, (3, 4), (3, 4), (3, 4))
    assert state.to_act() == [0]
    assert state.legal_actions(0) == [{"type": "choose_depth", "depth": d} for d in range(1, 7)]
    act(state, 0, {"type": "choose_depth", "depth": 3})
    assert state.to_act() == [1]
    assert state.observation(1)["players"][0]["chosen_depth"] == 3
    act(state, 1, {"type": "choose_depth", "depth": 3})        # several seats may share a depth
    assert state.to_act() == [2]


@pytest.mark.parametrize("depths,reveals", [((4, 4), [10]), ((5, 1), [10, 9]), ((6, 5), [10, 9]),
                                            ((1, 6), [10, 9])])
def test_P6_the_oxygenator_adds_one_more_card_once_if_anyone_chose_depth_5_or_6(depths, reveals):
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=depths, oxygenator=[10, 9],
                       events=["toughest_diver"] * 2, fallback=3)
    assert history(state)[:len(reveals)] == [["oxygenator", card, sum(reveals[:i + 1])]
                                             for i, card in enumerate(reveals)]
    assert state.spectator_view()["oxygenator_count"] == 10 - len(reveals)


def test_D_choose_duration_offers_1_to_the_max_card_and_releases_the_rest_as_oxygen():
    state = start_dive(2, prepares=[(3, 8), (3, 4)], depths=(1, 3), oxygenator=[6],
                       events=["toughest_diver"] * 2, rolls=[-1], fallback=2)
    # s0 reaches depth 1 (roll -1: O 5) and reveals its max card 8.
    assert decision(state) == "choose_duration" and state.to_act() == [0]
    assert player(state, 0)["max_card"] == 8 and player(state, 0)["max_card_face_down"] is False
    assert state.legal_actions(0) == [{"type": "choose_duration", "turns": t} for t in range(1, 9)]
    duration(state, 0, 3)
    assert ["duration", 0, 3, 10] in history(state)       # 5 + (8 - 3) released
    entry = history(state).index(["duration", 0, 3, 10])
    assert history(state)[entry + 1] == ["bonus", 0, "clue", "T3"]   # alone at depth 1


# --- bonuses (§4.4) ---------------------------------------------------------------------------

def test_the_depth_5_bonus_assignment_example_and_the_gold_returning_when_c_runs_out():
    """§8 assignment example: A 3 turns (arrival 1), B 5 (2), C 5 (3); B takes the clue, C the gold."""
    state = start_dive(3, prepares=[(4, 3), (4, 5), (4, 6)], depths=(5, 5, 5), oxygenator=[1, 2],
                       events=["toughest_diver"] * 3, dice=(9, 9), rolls=[0] * 15 + [-3] * 6,
                       fallback=4)
    assert state.spectator_view()["oxygen"] == 3
    duration(state, 0, 3)
    duration(state, 1, 5)
    duration(state, 2, 5)
    assert decision(state) == "choose_bonus" and state.to_act() == [1]
    assert state.legal_actions(1) == [{"type": "choose_bonus", "bonus": "gold"},
                                      {"type": "choose_bonus", "bonus": "clue"}]
    assert state.spectator_view()["bonus_depth"] == 5
    bonus(state, 1, "clue")
    assert player(state, 1)["temp_clues"] == ["T2"] and player(state, 1)["bonus_gold"] == 0
    assert player(state, 2)["bonus_gold"] == 4 and player(state, 2)["temp_clues"] == []
    assert player(state, 0)["bonus_gold"] == 0 and player(state, 0)["temp_clues"] == []
    view = state.spectator_view()
    assert view["board_gold"][4] == 0 and view["board_clues"][4] is None
    # C runs out on its second search: its 8 found gold returns to the pile (59 -> 67), its 4 bonus
    # gold to the bank, and its 3 remaining tokens are absorbed (O := 0 + 3).
    # C's Toughest Diver is playable once (gold bonus, common deck not empty); at its next
    # turn the common deck is spent and no window opens.
    assert pass_windows(state) == [2]
    records = history(state)
    out = records.index(["out", 2, 3, 67])
    assert records[out - 2:out] == [["search", 2, 3], ["roll", 2, -3, -2]]
    assert state.spectator_view()["players"][2]["gold"] == 0


def test_a_lone_seat_chooses_between_two_bonuses_and_the_other_stays_on_the_board():
    state = start_dive(2, prepares=[(3, 5), (3, 4)], depths=(4, 1), events=["toughest_diver"] * 2,
                       rolls=[0] * 5, fallback=5)
    duration(state, 1, 1)                       # s1 at depth 1 first (turn 2)
    duration(state, 0, 2)                       # s0 at depth 4 (turn 7)
    assert decision(state) == "choose_bonus" and state.to_act() == [0]
    bonus(state, 0, "gold")
    assert player(state, 0)["bonus_gold"] == 3 and player(state, 0)["received_gold_bonus"] is True
    view = state.spectator_view()
    assert view["board_clues"][3] == "D4" and view["board_gold"][3] == 0


def test_bonus_ties_go_to_the_earlier_arrival_and_rank_2_gets_the_other_bonus():
    state = start_dive(3, prepares=[(3, 5), (3, 5), (3, 6)], depths=(4, 4, 4),
                       events=["toughest_diver"] * 3, rolls=[0] * 12, fallback=6)
    duration(state, 0, 3)
    duration(state, 1, 4)
    duration(state, 2, 4)
    # s1 and s2 tie on 4 turns; s1 arrived earlier (2 before 3); s0 ranks third.
    assert state.to_act() == [1]
    bonus(state, 1, "gold")
    assert player(state, 1)["bonus_gold"] == 3
    assert player(state, 2)["temp_clues"] == ["D4"]
    assert player(state, 0)["bonus_gold"] == 0 and player(state, 0)["temp_clues"] == []


def test_a_group_waits_for_a_descending_member_and_is_assigned_when_it_runs_out():
    """D15: the group of a depth only waits for seats that can still receive."""
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 5), (1, 8)], depths=(2, 2),
                       oxygenator=[1], events=["toughest_diver"] * 2, rolls=[0, -3, 0, -3],
                       fallback=7)
    duration(state, 0, 3)
    records = history(state)
    start = records.index(["duration", 0, 3, 2])
    # s1 runs out on its way down: its face-down 8 is absorbed whole (D16); then s0 alone
    # completes the group of depth 2 and takes the clue D5.
    assert records[start + 1:start + 5] == [
        ["move", 1, 2], ["roll", 1, -3, -1], ["out", 1, 8, 55], ["bonus", 0, "clue", "D5"]]
    assert {"seat": 1, "value": 8, "dive": 1} in state.spectator_view()["max_cards_discarded"]


def test_a_seat_that_surfaced_before_its_depth_was_assigned_is_not_ranked():
    """D15: s1 is held at depth 1 by three Swordfish 'stay' results while s0 dives to 2 and back."""
    dive_1 = [0] * 7
    # Dive 2: T1 s0 d1, T2 s1 d1, T3 Swordfish(-1) on s1 + s0 d2, T4 s1 stays, T5 Swordfish(-1)
    # on s1 + s0 search, T6 s1 stays, T7 s0 ascent, T8 s1 Swordfish(-1) on itself + stays,
    # T9 s0 surfaces, T10 s1 reaches depth 2.
    dive_2 = [[], 5, 5, 0, 0, -1, 0, 0, -1, 0, 0, 0, -1, 0, 0, 0]
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(1, 1), oxygenator=[10, 9],
                       events=["swordfish"] * 4, rolls=dive_1, after=["T4"] + dive_2, fallback=8)
    duration(state, 0, 1)
    duration(state, 1, 2)                       # s1 ranks first at depth 1 and takes T3
    assert state.spectator_view()["dive"] == 2 and state.spectator_view()["start_player"] == 0
    prepare(state, (5, 6), (4, 6))
    choose_depths(state, 2, 2)
    assert state.to_act() == [1]                 # T2: s1 may send the Swordfish on s0 at depth 1
    end_window(state, 1)
    play(state, 0, "swordfish", target=1)        # T3
    assert player(state, 1)["swordfish"] == "stay"
    end_window(state, 0)
    duration(state, 0, 1)                        # s0 arrives at depth 2; the group waits for s1
    assert player(state, 0)["temp_clues"] == []
    play(state, 0, "swordfish", target=1)        # T5 (window closes: no card left)
    play(state, 1, "swordfish", target=1)        # T8: s1 on itself
    end_window(state, 1)
    assert player(state, 0)["status"] == "surfaced" and player(state, 0)["gold"] == 1 + 2
    end_window(state, 1)                         # T10
    assert player(state, 1)["depth"] == 2
    duration(state, 1, 1)
    assert player(state, 1)["temp_clues"] == ["D5"]
    assert player(state, 0)["clues"] == []
    moves = [e for e in log(state) if e[0] == "move" and e[1] == 1]
    assert moves[:5] == [["move", 1, 1]] * 4 + [["move", 1, 2]]


# --- running out of oxygen (§4.4) ----------------------------------------------------------------

def test_running_out_while_descending_absorbs_the_face_down_card_whole():
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 8), (1, 7)], depths=(3, 3),
                       oxygenator=[1], events=["toughest_diver"] * 2, rolls=[-3, -3, -3, 0])
    # s0 -3: O -2, common 1 -> -1, common 1 -> 0; s1 -3: O -3, no common card: s1 runs out.
    # s0 goes on: d2 (-3: O 4), d3 (0) and reveals its card.
    assert state.to_act() == [0] and decision(state) == "choose_duration"
    assert state.spectator_view()["oxygen"] == 4
    records = history(state)
    assert ["out", 1, 7, 55] in records
    view = state.spectator_view()
    assert view["players"][1]["status"] == "out" and view["players"][1]["depth"] == 0
    assert view["players"][1]["max_card_face_down"] is False
    assert {"seat": 1, "value": 7, "dive": 1} in view["max_cards_discarded"]
    assert private(state, 1)["max_card"] is None


def test_running_out_while_searching_returns_found_gold_and_clues_and_absorbs_the_tokens():
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 5), (1, 4)], depths=(2, 1),
                       oxygenator=[1], events=["toughest_diver"] * 2, dice=(5, 0),
                       rolls=[0, 0, 0, 0, -3, 0, -3, -3], after=["T4"])
    duration(state, 1, 1)                       # s1 at depth 1: T3 (alone)
    duration(state, 0, 4)                       # s0 at depth 2: D5 (alone)
    records = history(state)
    # s0: search 2 gold (O 2), search 2 gold (-3: O -1, common 1: O 0), then -3 with the common
    # deck empty: out with 1 token left, its 4 found gold back to the pile (45 -> 49).
    assert records[records.index(["search", 0, 1]):][:3] == [
        ["search", 0, 1], ["roll", 0, -3, -3], ["common", 1, -2]]
    assert ["out", 0, 1, 49] in records
    view = state.spectator_view()
    assert view["dive"] == 2
    assert view["players"][0]["gold"] == 0 and view["players"][0]["clues"] == []
    assert view["board_clues"][1] == "D5"                   # returned face up to depth 2
    assert view["board_clues"][0] == "T4"                   # depth 1 refilled at E3
    assert view["players"][1]["gold"] == 1 + 20 and view["players"][1]["clues"] == ["T3"]


def test_running_out_while_ascending_absorbs_nothing():
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 3), (1, 4)], depths=(1, 3),
                       oxygenator=[1], events=["toughest_diver"] * 2, dice=(5, 0),
                       rolls=[0, 0, -1, 0, -1, 0, -1, 0, -1], fallback=9)
    duration(state, 0, 3)
    duration(state, 1, 4)
    records = history(state)
    # s0's ascent turn: max card 3 discarded face up, up to the boat, roll -1 with O 0 and
    # an empty common deck: out, O := 0 and nothing to absorb.
    assert records[records.index(["ascent", 0, 0]):][:3] == [
        ["ascent", 0, 0], ["roll", 0, -1, -1], ["out", 0, 0, 46]]
    discarded = [e for e in state.spectator_view()["max_cards_discarded"] if e["dive"] == 1]
    assert [e for e in discarded if e["seat"] == 0] == [{"seat": 0, "value": 3, "dive": 1}]


# --- the Jewel of Zakarra (§4.3 Surface) ---------------------------------------------------------

def jewel_dive_1(removed=None, dive_2=(), oxygenator=(10, 9, 8)):
    """Dive 1: s0 takes D5 at depth 2, s1 T3 at depth 1; both surface (2 and 1 gold)."""
    state = start_dive(2, removed=removed, prepares=[(3, 4), (3, 5)], depths=(2, 1),
                       oxygenator=oxygenator, events=["toughest_diver"] * 4, rolls=[0] * 8,
                       after=["T4", "D2", [], 5, 5] + list(dive_2))
    duration(state, 1, 1)
    duration(state, 0, 1)
    view = state.spectator_view()
    assert view["dive"] == 2
    # Both surfaced: no sole-survivor bonus.
    assert [p["gold"] for p in view["players"]] == [2, 1]
    assert [p["clues"] for p in view["players"]] == [["D5"], ["T3"]]
    assert view["board_clues"][:2] == ["D2", "T4"]
    assert view["start_player"] == 1
    return state


def test_the_jewel_goes_to_a_seat_surfacing_with_a_matching_depth_and_duration_clue():
    state = jewel_dive_1(dive_2=[0] * 15)
    prepare(state, (5, 6), (4, 6))
    choose_depths(state, 5, 1)
    duration(state, 1, 1)                       # s1 takes D2 at depth 1
    duration(state, 0, 2)                       # s0 at depth 5: gold 4 or clue T2
    bonus(state, 0, "clue")
    view = state.spectator_view()
    assert view["jewel_holder"] == 0 and view["players"][0]["jewel"] is True
    assert view["players"][0]["score"] == view["players"][0]["gold"] + 50
    assert view["players"][0]["gold"] == 2 + 16
    assert ["jewel", 0] in history(state)
    # Every clue on the board and in the supply left the game: no more clue bonuses.
    assert view["board_clues"] == [None] * 6 and view["clue_supply"] == []
    assert sorted(view["clues_removed"]) == ["D3", "D4", "D6", "T4", "T5", "T6"]


def test_d19_the_jewel_s_50_counts_when_the_lowest_score_takes_the_start_player():
    # Dive 2: s0 finds the jewel with 18 gold; s1 banks 26 gold at depth 6. Gold alone would
    # make s0 the start player of dive 3; with the jewel s0 has 68, so s1 starts.
    state = jewel_dive_1(dive_2=[0] * 40)
    prepare(state, (5, 6), (4, 6))
    choose_depths(state, 5, 6)
    duration(state, 0, 2)
    bonus(state, 0, "clue")                     # s0: D5 + T2
    duration(state, 1, 2)
    bonus(state, 1, "gold")                     # s1: 5 gold (the clue D6 stays)
    assert pass_windows(state)                  # s1 keeps its Toughest Diver
    view = state.spectator_view()
    assert view["dive"] == 3 and view["jewel_holder"] == 0
    assert [p["gold"] for p in view["players"]] == [18, 26]
    assert [p["score"] for p in view["players"]] == [68, 26]
    assert view["start_player"] == 1


def test_the_jewel_is_lost_when_the_would_be_finder_runs_out_and_its_clue_goes_back():
    dive_2 = [0] * 8 + [-3] * 5 + ["D3"]
    state = jewel_dive_1(removed=[[9, 10], [1, 2]], dive_2=dive_2, oxygenator=(10, 1, 2))
    prepare(state, (1, 2), (4, 6))
    choose_depths(state, 5, 1)
    duration(state, 1, 1)
    duration(state, 0, 2)
    bonus(state, 0, "clue")
    view = state.spectator_view()
    assert view["dive"] == 3 and view["jewel_holder"] is None
    assert view["players"][0]["clues"] == ["D5"]
    assert view["board_clues"][4] == "T2"
    assert any(e[:3] == ["out", 0, 0] for e in history(state))


def test_with_two_qualifiers_in_one_dive_the_first_to_surface_takes_the_jewel():
    dive_1 = [0] * 14
    dive_2 = [[], 5, 5] + [0] * 24
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(2, 4), oxygenator=[10, 9, 8],
                       events=["toughest_diver"] * 4, rolls=dive_1, after=["T4", "T5"] + dive_2)
    duration(state, 0, 1)                       # s0: D5 at depth 2
    duration(state, 1, 1)                       # s1 alone at depth 4: gold 3 or D4
    bonus(state, 1, "clue")
    view = state.spectator_view()
    assert view["dive"] == 2 and view["board_clues"][3] == "T4" and view["board_clues"][1] == "T5"
    assert view["start_player"] == 0
    prepare(state, (5, 6), (4, 6))
    choose_depths(state, 5, 4)
    duration(state, 1, 4)
    bonus(state, 1, "clue")                     # s1 takes T4: D4 + T4 qualifies
    duration(state, 0, 2)
    bonus(state, 0, "clue")                     # s0 takes T2: D5 + T2 qualifies
    view = state.spectator_view()
    assert view["jewel_holder"] == 0
    assert view["players"][1]["jewel"] is False and sorted(view["players"][1]["clues"]) == ["D4", "T4"]
    surfaced = [e[1] for e in history(state) if e[0] == "surface"][-2:]
    assert surfaced == [0, 1]
    assert ["jewel", 1] not in history(state)


# --- end of dive and end of game (§4.6, §6) ------------------------------------------------------

def test_the_start_player_passes_to_the_lowest_score_and_a_tied_start_player_comes_last():
    """Scores 1, 2, 1 after dive 1: s0 and s2 tie, the order s1, s2, s0 gives s2."""
    state = start_dive(3, prepares=[(3, 4), (3, 4), (3, 4)], depths=(1, 1, 1),
                       events=["toughest_diver"] * 3 + ["swordfish", "wall_d", "sabotage"],
                       rolls=[0] * 10, after=["T4", [], 5, 5])
    duration(state, 0, 1)
    duration(state, 1, 2)
    duration(state, 2, 1)                       # s1 ranks first (2 turns) and takes T3
    view = state.spectator_view()
    assert view["dive"] == 2
    assert [p["score"] for p in view["players"]] == [1, 2, 1]
    assert view["start_player"] == 2
    # P2 of dive 2 deals from the new start player: s2, s0, s1.
    assert [private(state, s)["events"][-1] for s in range(3)] == ["wall_d", "sabotage", "swordfish"]
    prepare(state, (5, 6), (5, 6), (5, 6))
    assert state.to_act() == [2]                # depth choices start with the start player


def test_the_start_player_passes_to_the_seat_after_the_start_player_when_all_tie():
    state = start_dive(3, prepares=[(3, 4), (3, 4), (3, 4)], depths=(1, 1, 1),
                       events=["toughest_diver"] * 3, rolls=[0] * 9, after=["T4"])
    duration(state, 0, 1)
    duration(state, 1, 1)
    duration(state, 2, 1)
    view = state.spectator_view()
    assert [p["score"] for p in view["players"]] == [1, 1, 1]
    assert view["start_player"] == 1


def finished_game(num_players=3, seed=4):
    state = GAME.new_state(num_players=num_players, seed=seed)
    chooser = random.Random(seed)
    while not state.is_terminal():
        state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
    return state


def test_a_random_game_ends_after_four_dives_with_scores_from_gold_and_jewel():
    state = finished_game()
    view = state.spectator_view()
    assert view["dive"] == 4 and view["phase"] == "over" and state.to_act() == []
    assert all(p["hand_size"] == 0 for p in view["players"])
    result = state.result()
    assert result["scores"] == [p["gold"] + (50 if p["jewel"] else 0) for p in view["players"]]


def test_final_ties_break_on_the_jewel_then_on_unused_event_cards_then_share_the_rank():
    """§6, checked on a finished game whose seats are given tied scores."""
    state = finished_game(num_players=5)
    seats = state.seats
    for seat, (gold, jewel, events) in enumerate(
            [(40, False, 0), (40, False, 2), (0, True, 0), (40, False, 2), (39, False, 5)]):
        seats[seat].gold, seats[seat].jewel = gold, jewel
        seats[seat].events = ["swordfish"] * events
    result = state.result()
    assert result["scores"] == [40, 40, 50, 40, 39]
    assert result["ranks"] == [4, 2, 1, 2, 5]


def test_without_the_jewel_option_there_are_no_clues_and_gold_bonuses_are_automatic():
    state = start_dive(2, prepares=[(3, 5), (3, 4)], depths=(4, 1), jewel=False,
                       events=["bonus_happy", "toughest_diver"], rolls=[0] * 5, fallback=10)
    view = state.spectator_view()
    assert view["board_clues"] == [None] * 6 and view["clue_supply"] == []
    duration(state, 1, 1)
    duration(state, 0, 2)
    # Gold was the only bonus at depth 4: no choose_bonus decision, and Bonus Happy (gold
    # already received, no clue to take) was never playable: the dive ran to its end.
    assert ["bonus", 0, "gold", 3] in history(state)
    assert state.spectator_view()["dive"] == 2 and decision(state) == "prepare"
    assert "bonus_happy" in private(state, 0)["events"]
    assert state.rng.calls[:4] == ["sample(<10 items>, 2)", "sample(<10 items>, 2)",
                                   "shuffle(<50 items>)", "shuffle(<10 items>)"]
    assert state.rng.calls[4] == "shuffle(<2 items>)"   # no clue shuffle at setup


def test_the_jewel_option_must_be_a_boolean():
    from engines import InvalidOptions
    assert GAME.default_options == {"jewel": True}
    with pytest.raises(InvalidOptions):
        GAME.new_state(num_players=2, seed=1, options={"jewel": "yes"})
    assert GAME.new_state(num_players=2, seed=1, options={"jewel": False}).spectator_view()["jewel_option"] is False


def test_an_accepted_action_is_stored_as_the_engines_own_json_value():
    state = new_game(2, setup_script(2, events=["toughest_diver"] * 2) + [[], 5, 5], fallback=1)
    prepare(state, (3, 4), (3, 4))
    state.apply({0: {"type": "choose_depth", "depth": 2.0}})      # 2.0 == 2 in Python
    depth = state.spectator_view()["players"][0]["chosen_depth"]
    assert depth == 2 and type(depth) is int


def test_a_caller_that_edits_its_legal_list_changes_neither_the_list_nor_what_apply_accepts():
    state = new_game(2, setup_script(2, events=["toughest_diver"] * 2) + [[], 5, 5], fallback=1)
    prepare(state, (3, 4), (3, 4))
    legal = state.legal_actions(0)
    legal.append({"type": "choose_depth", "depth": 9})
    legal.remove({"type": "choose_depth", "depth": 1})
    legal.reverse()
    assert state.legal_actions(0) == [{"type": "choose_depth", "depth": d} for d in range(1, 7)]
    with pytest.raises(IllegalAction):
        state.apply({0: {"type": "choose_depth", "depth": 9}})
    state.apply({0: {"type": "choose_depth", "depth": 1}})
    assert state.spectator_view()["players"][0]["chosen_depth"] == 1


def test_a_bonus_choice_triggered_by_the_active_seat_running_out_is_followed_by_the_next_slot():
    """§4.5: choose_bonus belongs to rank 1 during another seat's turn; if the active seat ran
    out, the next slot begins afterwards."""
    # T1 s0 -3 spends the common deck (1, 1); T2..T6 0; T7 s0 +1 arrives at depth 4 (card 5).
    # T8 s1 -3 on its way down: no common card left, s1 runs out and absorbs its 8.
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 5), (1, 8)], depths=(4, 4),
                       oxygenator=[1], events=["toughest_diver"] * 2,
                       rolls=[-3, 0, 0, 0, 0, 0, 1, -3], fallback=9)
    duration(state, 0, 5)
    assert state.to_act() == [0] and decision(state) == "choose_bonus"
    assert state.spectator_view()["turn_seat"] == 1 and player(state, 1)["status"] == "out"
    assert state.spectator_view()["oxygen"] == 8
    bonus(state, 0, "clue")                                     # the gold 3 stays on the board
    records = history(state)
    out = records.index(["out", 1, 8, 55])
    assert records[out + 1] == ["bonus", 0, "clue", "D4"]
    assert records[out + 2] == ["search", 0, 4]                  # the next slot: s0 searches
    assert not [e for e in records[out:] if e[0] in ("move", "roll") and e[1] == 1]


# --- rule gaps: an emptied dive pile, a dive nobody survives, a short clue supply, the last dive ---

def test_a_search_takes_what_the_dive_pile_still_holds_and_an_empty_pile_still_costs_the_roll():
    """§4.3 search, D10: min(amount, pile); 0 from an empty pile, after the search's own roll."""
    state = start_dive(2, prepares=[(3, 5), (3, 4)], depths=(4, 1), dice=(1, 0), rolls=[0] * 14,
                       events=["toughest_diver"] * 2, after=["T4"], fallback=1)
    assert state.spectator_view()["dive_pile"] == 10                # dice 1 and 0
    duration(state, 1, 1)                                           # s1 takes 1 gold: pile 9
    duration(state, 0, 3)
    bonus(state, 0, "gold")
    pass_windows(state)                                             # s0 keeps its Toughest Diver
    records = history(state)
    first = records.index(["search", 0, 2])
    assert records[first:first + 9] == [
        ["search", 0, 2], ["roll", 0, 0, 15], ["gold", 0, 6, 3],
        ["search", 0, 1], ["roll", 0, 0, 15], ["gold", 0, 3, 0],    # G[4] = 6, only 3 left
        ["search", 0, 0], ["roll", 0, 0, 15], ["gold", 0, 0, 0],    # nothing left
    ]
    assert ["surface", 0, 6 + 3 + 3] in records
    assert [p["gold"] for p in state.spectator_view()["players"]] == [12, 1]


def test_a_dive_nobody_survives_gives_no_sole_survivor_bonus_and_the_tie_passes_the_start():
    """E1 needs exactly one surfaced seat; E6 with both at 0 passes to start + 1."""
    # O 1; T1 s0 -3 spends the common deck (1, 1); T2 s1 -3: out, absorbs its 2; T3 s0 -3: out.
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 2), (1, 2)], depths=(3, 3),
                       oxygenator=[1], events=["toughest_diver"] * 2, rolls=[-3, -3, -3], fallback=2)
    records = history(state)
    assert records[-3:] == [["move", 0, 2], ["roll", 0, -3, -1], ["out", 0, 2, 55]]
    assert not [entry for entry in records if entry[0] in ("sole_survivor", "surface")]
    view = state.spectator_view()
    assert view["dive"] == 2 and [p["gold"] for p in view["players"]] == [0, 0]
    assert view["start_player"] == 1


def test_the_clue_refill_goes_from_depth_6_up_and_a_short_supply_leaves_the_shallowest_depth_empty():
    """E3: five clues taken in one dive, four in the supply: depths 5, 4, 3, 2 are refilled."""
    # Five seats alone at depths 1..5 all take their depth's clue (D4 and T2 chosen over gold);
    # s0's Bonus Happy is never playable (no gold at depth 1, a clue already received).
    state = start_dive(5, prepares=[(3, 4)] * 5, depths=(1, 2, 3, 4, 5), oxygenator=[10, 9],
                       events=["bonus_happy"] + ["toughest_diver"] * 4, rolls=[0] * 35,
                       after=["T5", "T4", "D3", "D2"], fallback=3)
    for seat in range(5):
        duration(state, seat, 1)
        if seat >= 3:
            bonus(state, seat, "clue")
    view = state.spectator_view()
    assert view["dive"] == 2 and state.rng.remaining == 0
    assert [p["clues"] for p in view["players"]] == [["T3"], ["D5"], ["T6"], ["D4"], ["T2"]]
    assert [entry for entry in history(state) if entry[0] == "clue_refill"] == [
        ["clue_refill", 5, "T5"], ["clue_refill", 4, "T4"], ["clue_refill", 3, "D3"], ["clue_refill", 2, "D2"]]
    assert view["board_clues"] == [None, "D2", "D3", "T4", "T5", "D6"]
    assert view["clue_supply"] == []
    # E6: s0's lowest score keeps it the start player (it comes last only among tied seats).
    assert [p["score"] for p in view["players"]] == [1, 2, 4, 6, 8] and view["start_player"] == 0


def test_the_game_ends_after_dive_4_with_no_further_event_draw_nor_start_player_pass():
    """E6: after dive 4's E5 the game is over; P2 and the start player's pass belong to a next dive."""
    for num_players in (2, 5):
        state = GAME.new_state(num_players=num_players, seed=11)
        chooser = random.Random(11)
        while state.is_terminal() is False and state.spectator_view()["dive"] < 4:
            state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
        start = state.spectator_view()["start_player"]
        while not state.is_terminal():
            state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
        view = state.spectator_view()
        assert view["phase"] == "over" and view["dive"] == 4 and view["decision"] is None
        assert view["start_player"] == start
        assert view["event_deck_count"] == 50 - 4 * num_players
        assert view["dive_pile"] == 0 and view["common_deck_count"] == 0
        assert all(state.legal_actions(seat) == [] for seat in range(num_players))
        with pytest.raises(IllegalAction):
            state.apply({0: {"type": "end_window"}})
        scores = [p["gold"] + (50 if p["jewel"] else 0) for p in view["players"]]
        assert state.result()["scores"] == scores


def test_a_sabotage_swap_changes_the_card_each_owner_reveals_and_the_durations_it_allows():
    """§4.5 Sabotage swap, then arrival (a)-(b): V is the card now in front of the seat."""
    state = start_dive(3, prepares=[(3, 4), (3, 9), (3, 6)], depths=(2, 2, 2),
                       events=["sabotage", "toughest_diver", "toughest_diver"], rolls=[0] * 6, fallback=5)
    play(state, 0, "sabotage", mode="swap", seats=[1, 2])
    duration(state, 0, 1)
    assert state.to_act() == [1] and player(state, 1)["max_card"] == 6
    assert state.legal_actions(1)[-1] == {"type": "choose_duration", "turns": 6}
    duration(state, 1, 6)
    assert state.to_act() == [2] and player(state, 2)["max_card"] == 9
    assert state.legal_actions(2)[-1] == {"type": "choose_duration", "turns": 9}
    assert [entry for entry in log(state) if entry[0] == "arrive"] == [
        ["arrive", 0, 4], ["arrive", 1, 6], ["arrive", 2, 9]]


def test_once_the_jewel_is_taken_a_clue_lost_by_running_out_leaves_the_game():
    """§4.4 running out, step 1: temporary clues return to their depth, or leave the game once
    the jewel has been taken (its finder took every board and supply clue out of the game)."""
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(2, 1), oxygenator=(10, 9, 8),
                       events=["toughest_diver"] * 4, rolls=[0] * 8, after=["T4", "D2"], fallback=0)
    duration(state, 1, 1)                       # dive 1 as in jewel_dive_1: s0 D5, s1 T3
    duration(state, 0, 1)
    prepare(state, (5, 6), (4, 10))
    choose_depths(state, 5, 6)                  # dive 2, s1 starts
    duration(state, 0, 2)
    bonus(state, 0, "clue")                     # s0: T2 (D5 + T2 will make the jewel)
    duration(state, 1, 10)
    bonus(state, 1, "clue")                     # s1 alone at depth 6 takes D6 over the gold
    records = history(state)
    jewel = records.index(["jewel", 0])
    out = next(i for i, entry in enumerate(records) if entry[:2] == ["out", 1])
    assert jewel < out                          # s1 runs out on its way up, after the jewel
    view = state.spectator_view()
    assert view["jewel_holder"] == 0
    assert view["clues_removed"][-1] == "D6" and "D6" not in view["board_clues"]
    assert view["board_clues"] == [None] * 6 and view["clue_supply"] == []
    assert [p["clues"] for p in view["players"]] == [["D5", "T2"], ["T3"]]
