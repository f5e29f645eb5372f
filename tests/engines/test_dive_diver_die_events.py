"""Dive! Diver! Die!: the eight event cards and their windows (rules §4.5).

For every card: when it is legal, when it is not, its targets and its effect. Chance is
fixed with a scripted random source; rolls listed per turn in comments.
"""

from __future__ import annotations

import random

import pytest

from engines import IllegalAction
from tests.engines.dive_diver_die_support import (
    GAME,
    act,
    answer,
    bonus,
    decision,
    duration,
    end_window,
    finish_dive,
    history,
    log,
    play,
    player,
    private,
    start_dive,
)

INERT = "toughest_diver"        # not playable without a gold bonus: keeps a seat's windows shut


def plays(state, seat):
    """The play_event actions offered to ``seat`` (end_window left out)."""
    return [a for a in state.legal_actions(seat) if a["type"] == "play_event"]


# --- Perilous Dive -------------------------------------------------------------------------------

def test_perilous_dive_doubles_own_rolls_and_base_gold_but_not_the_wall():
    # T1 s0 plays Perilous, d1, roll -1 x2; arrives (4), 2 turns: O 8 + 2. T2 s1 plays Wall-F
    # on s0. T3 s0 search: roll 0; gold 1 x2 = 2, Wall-F w -3: 2 - 3 -> 0. T4 s1 d2 roll 0.
    # T5 s0 search: roll +1 x2; gold 2 + Wall-F w +1 = 3.
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(1, 3), events=["perilous_dive", "wall_f"],
                       rolls=[-1, 0, 0, -3, 0, 1, 1], fallback=1)
    assert plays(state, 0) == [{"type": "play_event", "card": "perilous_dive"}]
    play(state, 0, "perilous_dive")
    assert player(state, 0)["perilous"] is True
    duration(state, 0, 2)
    assert plays(state, 1) == [{"type": "play_event", "card": "wall_f", "target": 0},
                               {"type": "play_event", "card": "wall_f", "target": 1}]
    play(state, 1, "wall_f", target=0)
    records = log(state)
    assert records[1:3] == [["move", 0, 1], ["roll", 0, -2, 8]]
    first = records.index(["search", 0, 1])
    assert records[first:first + 4] == [["search", 0, 1], ["roll", 0, 0, 10], ["wall", 0, -3],
                                        ["gold", 0, 0, 55]]
    second = records.index(["search", 0, 0])
    assert records[second:second + 4] == [["search", 0, 0], ["roll", 0, 2, 12], ["wall", 0, 1],
                                          ["gold", 0, 3, 52]]


def test_perilous_dive_is_only_for_an_active_diver():
    # s1 (depth 1, 1 turn) may play it descending (T2) and searching with its token (T4), not
    # on its ascent turn (T6) nor once surfaced.
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(3, 1), events=[INERT, "perilous_dive"],
                       rolls=[0] * 5, fallback=2)
    assert state.to_act() == [1] and plays(state, 1) == [{"type": "play_event", "card": "perilous_dive"}]
    end_window(state, 1)
    duration(state, 1, 1)
    assert state.to_act() == [1] and plays(state, 1) == [{"type": "play_event", "card": "perilous_dive"}]
    end_window(state, 1)
    assert state.to_act() == [0] and decision(state) == "choose_duration"     # T5
    duration(state, 0, 1)
    assert decision(state) == "prepare" and state.spectator_view()["dive"] == 2
    assert "perilous_dive" in private(state, 1)["events"]


def test_perilous_dive_is_listed_once_for_two_copies_and_played_once_per_dive():
    state = start_dive(2, prepares=[(3, 4), (3, 5)], depths=(1, 1), events=["perilous_dive"] * 4,
                       fallback=3)
    finish_dive(state)                          # dive 1: nobody plays the card
    state.apply({s: state.legal_actions(s)[0] for s in state.to_act()})
    first = state.spectator_view()["start_player"]
    for _ in range(2):
        act(state, state.to_act()[0], {"type": "choose_depth", "depth": 3})
    assert state.to_act() == [first]
    assert private(state, first)["events"] == ["perilous_dive", "perilous_dive"]
    assert plays(state, first) == [{"type": "play_event", "card": "perilous_dive"}]
    play(state, first, "perilous_dive")
    # The window closed although a second copy is in hand: Perilous is already active.
    assert state.to_act() != [first] or decision(state) != "event_window"
    assert private(state, first)["events"] == ["perilous_dive"]


# --- Bonus Happy ---------------------------------------------------------------------------------

def test_bonus_happy_waits_for_the_assignment_and_then_gives_the_missing_gold_from_the_bank():
    # s0 and s2 dive to depth 4; s1 (depth 1) surfaces and holds s2 back with a Swordfish.
    rolls = [0] * 9 + [0, -1, 0, 0, 0] + [0] * 12
    state = start_dive(3, prepares=[(3, 4), (3, 4), (3, 4)], depths=(4, 1, 4),
                       events=["bonus_happy", "swordfish", INERT], rolls=rolls, fallback=3)
    end_window(state, 1)                        # R1: s1 could send the Swordfish on s0
    duration(state, 1, 1)
    end_window(state, 1)                        # R2
    end_window(state, 1)                        # R3
    duration(state, 0, 3)                       # R4: s0 at depth 4, the group waits for s2
    play(state, 1, "swordfish", target=2)       # R4: s1 surfaced; s2 at depth 3 stays
    # R5: s0 searches without a window (Bonus Happy not legal before the assignment).
    assert decision(state) == "choose_duration" and state.to_act() == [2]
    assert [e for e in log(state) if e[:2] == ["move", 2]][-2:] == [["move", 2, 3], ["move", 2, 4]]
    assert log(state)[-6:-3] == [["search", 0, 2], ["roll", 0, 0, 13], ["gold", 0, 6, 48]]
    duration(state, 2, 2)
    bonus(state, 0, "clue")                     # s0 ranks first (3 turns); s2 gets the gold 3
    assert player(state, 2)["bonus_gold"] == 3
    # R6: s0 may now take the gold it did not receive, from the bank.
    assert plays(state, 0) == [{"type": "play_event", "card": "bonus_happy", "take": "gold"}]
    play(state, 0, "bonus_happy", take="gold")
    assert state.spectator_view()["event_discard"][-1] == {
        "seat": 0, "dive": 1, "card": "bonus_happy", "take": "gold"}
    # The board token stayed with s2: both bank 3 gold bonus besides their 3 searches at 6.
    finish_dive(state)
    assert ["surface", 0, 6 + 6 + 6 + 3] in history(state)
    assert ["surface", 2, 6 + 6 + 3] in history(state)


def test_bonus_happy_takes_the_clue_left_on_the_board_but_never_a_second_clue():
    # s0 alone at depth 4 takes the gold; the clue D4 stays; Bonus Happy takes it next turn.
    state = start_dive(2, prepares=[(3, 5), (3, 5)], depths=(4, 1), events=["bonus_happy", INERT],
                       rolls=[0] * 13, after=["T4"], fallback=4)
    duration(state, 1, 1)
    duration(state, 0, 2)
    bonus(state, 0, "gold")
    assert plays(state, 0) == [{"type": "play_event", "card": "bonus_happy", "take": "clue"}]
    play(state, 0, "bonus_happy", take="clue")
    # The rest of the dive is automatic: s0 surfaces with the clue and its gold bonus.
    assert state.spectator_view()["dive"] == 2
    assert player(state, 0)["clues"] == ["D4"]
    assert ["surface", 0, 6 + 6 + 3] in history(state)


# --- Sabotage! -----------------------------------------------------------------------------------

def test_sabotage_targets_descending_seats_swaps_in_pair_order_then_hand_targets():
    state = start_dive(3, prepares=[(3, 4), (3, 9), (3, 6)], depths=(2, 2, 2),
                       events=["sabotage", INERT, INERT], fallback=5)
    assert plays(state, 0) == [
        {"type": "play_event", "card": "sabotage", "mode": "swap", "seats": [0, 1]},
        {"type": "play_event", "card": "sabotage", "mode": "swap", "seats": [0, 2]},
        {"type": "play_event", "card": "sabotage", "mode": "swap", "seats": [1, 2]},
        {"type": "play_event", "card": "sabotage", "mode": "hand", "target": 1},
        {"type": "play_event", "card": "sabotage", "mode": "hand", "target": 2},
    ]
    with pytest.raises(IllegalAction):
        state.apply({0: {"type": "play_event", "card": "sabotage", "mode": "hand", "target": 0}})
    play(state, 0, "sabotage", mode="swap", seats=[1, 2])
    assert private(state, 1)["max_card"] == 6 and private(state, 2)["max_card"] == 9
    # The saboteur, owner of neither card, learns nothing about them.
    seen = state.observation(0)
    assert [seen["players"][s]["max_card"] for s in (1, 2)] == [None, None]
    assert seen["you"]["hand"] == [5, 6, 7, 8, 9, 10] and seen["you"]["events"] == []
    assert state.spectator_view()["event_discard"] == [
        {"seat": 0, "dive": 1, "card": "sabotage", "mode": "swap", "seats": [1, 2]}]


def test_sabotage_hand_gives_a_random_card_of_the_saboteur_and_takes_the_targets_card():
    # The engine picks 5 from s0's hand 5..10; s1's face-down 10 goes into s0's hand, which can
    # then prepare the same value twice in dive 2.
    state = start_dive(2, prepares=[(3, 4), (3, 10)], depths=(1, 3), events=["sabotage", INERT],
                       after=[5], fallback=6)
    play(state, 0, "sabotage", mode="hand", target=1)
    assert private(state, 0)["hand"] == [6, 7, 8, 9, 10, 10]
    assert private(state, 1)["max_card"] == 5
    assert state.rng.calls[-1] == "choice(<6 items>)"
    assert "5" not in str(state.spectator_view()["event_discard"])
    finish_dive(state)
    assert {"type": "prepare", "oxygen": 10, "duration": 10} in state.legal_actions(0)
    assert {"type": "prepare", "oxygen": 9, "duration": 9} not in state.legal_actions(0)


def test_sabotage_is_not_playable_without_a_descending_target_other_than_a_lone_saboteur():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 1), events=[INERT, "sabotage"],
                       rolls=[0] * 2, fallback=7)
    duration(state, 0, 2)
    # T2: s1 is the only descending seat (no pair to swap, no other seat for "hand"): no window.
    assert state.to_act() == [1] and decision(state) == "choose_duration"
    duration(state, 1, 1)
    assert decision(state) == "prepare" and private(state, 1)["events"][0] == "sabotage"


# --- Wall-D and Wall-F ---------------------------------------------------------------------------

def test_walls_target_active_divers_without_a_wall_and_wall_f_blocks_a_later_wall_d():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 2), events=["wall_f", "wall_d"],
                       rolls=[0] * 8, fallback=8)
    assert plays(state, 0) == [{"type": "play_event", "card": "wall_f", "target": 0},
                               {"type": "play_event", "card": "wall_f", "target": 1}]
    play(state, 0, "wall_f", target=1)
    assert player(state, 1)["wall"] == "f"
    duration(state, 0, 1)                       # s0 searching with 1 token: still a target
    assert plays(state, 1) == [{"type": "play_event", "card": "wall_d", "target": 0}]
    play(state, 1, "wall_d", target=0)
    assert player(state, 0)["wall"] == "d"


def test_a_searching_seat_with_no_token_left_is_not_a_wall_target():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 3), events=[INERT, "wall_d"],
                       rolls=[0] * 8, fallback=9)
    duration(state, 0, 1)
    assert plays(state, 1) == [{"type": "play_event", "card": "wall_d", "target": 0},
                               {"type": "play_event", "card": "wall_d", "target": 1}]
    end_window(state, 1)
    # T3 s0 searches its only token; T4 s1's window: s0 (0 tokens) is no longer a target.
    assert plays(state, 1) == [{"type": "play_event", "card": "wall_d", "target": 1}]


# --- Swordfish Loves You -------------------------------------------------------------------------

def test_swordfish_stay_and_double_change_the_targets_next_move():
    # T1 s0 d1 (0). T2 s1: Swordfish on s0 rolls 0: double; s1 d1 (0). T3 s0: Swordfish on s1
    # rolls -2: stay; s0 d1 -> d3 (0). T4 s1 stays at d1 (0). T5 s0 d4 (0) and arrives.
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(4, 4), events=["swordfish", "swordfish"],
                       rolls=[0, 0, 0, -2, 0, 0, 0], fallback=10)
    assert plays(state, 1) == [{"type": "play_event", "card": "swordfish", "target": 0}]
    play(state, 1, "swordfish", target=0)
    assert player(state, 0)["swordfish"] == "double"
    assert plays(state, 0) == [{"type": "play_event", "card": "swordfish", "target": 1}]
    play(state, 0, "swordfish", target=1)
    assert decision(state) == "choose_duration" and state.to_act() == [0]
    moves = [e for e in log(state) if e[0] in ("move", "swordfish")]
    assert moves == [["move", 0, 1], ["swordfish", 0, 0, 10], ["move", 1, 1], ["swordfish", 1, -2, 8],
                     ["move", 0, 3], ["move", 1, 1], ["move", 0, 4]]
    assert player(state, 1)["swordfish"] is None


def test_swordfish_on_a_descending_seat_can_run_it_out_and_the_window_goes_on():
    # O 1, common 1 and 1 (both used by T1/T2 rolls of -2). T3 s0's window: Swordfish on s1
    # rolls -1: O -1, nothing left: s1 runs out and its face-down 8 is absorbed.
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 5), (1, 8)], depths=(3, 3),
                       oxygenator=[1], events=["swordfish", INERT], rolls=[-2, -1, -1], fallback=11)
    assert plays(state, 0) == [{"type": "play_event", "card": "swordfish", "target": 0},
                               {"type": "play_event", "card": "swordfish", "target": 1}]
    play(state, 0, "swordfish", target=1)
    assert player(state, 1)["status"] == "out"
    assert ["out", 1, 8, 55] in history(state)
    assert player(state, 1)["swordfish"] is None


def test_swordfish_needs_a_target_below_the_surface_that_is_not_searching():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 3), events=["swordfish", INERT],
                       rolls=[0] * 4, fallback=12)
    # T1: both seats still on the boat (depth 0): no target, no window.
    assert state.to_act() == [0] and decision(state) == "choose_duration"
    duration(state, 0, 2)
    # T3: s0 searching is no target; s1 descending at depth 1 is.
    assert plays(state, 0) == [{"type": "play_event", "card": "swordfish", "target": 1}]


# --- Toughest Diver ------------------------------------------------------------------------------

def test_toughest_diver_turns_the_common_oxygen_deck_into_bonus_gold():
    state = start_dive(2, prepares=[(7, 5), (6, 5)], depths=(4, 1), common=[7, 6],
                       events=["toughest_diver", "toughest_diver"], rolls=[0] * 13, fallback=13)
    duration(state, 1, 1)
    # s1 at depth 1 has no gold bonus: it is never offered the card (no window).
    duration(state, 0, 2)
    bonus(state, 0, "gold")
    assert plays(state, 0) == [{"type": "play_event", "card": "toughest_diver"}]
    oxygen = state.spectator_view()["oxygen"]
    play(state, 0, "toughest_diver")
    records = history(state)
    at = records.index(["toughest_diver", 0, 13])
    # No oxygen gained: the next roll starts from the same O.
    assert records[at + 1:at + 3] == [["search", 0, 1], ["roll", 0, 0, oxygen]]
    view = state.spectator_view()
    assert view["common_revealed"] == [7, 6]
    assert ["surface", 0, 6 + 6 + 3 + 13] in records
    assert private(state, 1)["events"][0] == "toughest_diver"


# --- Long Robotic Arm ----------------------------------------------------------------------------

def test_long_robotic_arm_searches_one_level_deeper_and_leaves_the_bonus_group():
    # s0 and s1 at depth 3 (clue T6). s0 plays the Arm while descending: the group is s1 alone.
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(3, 3),
                       events=["long_robotic_arm", INERT], rolls=[0] * 10, fallback=14)
    assert plays(state, 0) == [{"type": "play_event", "card": "long_robotic_arm"}]
    play(state, 0, "long_robotic_arm")
    assert player(state, 0)["long_robotic_arm"] is True
    duration(state, 0, 4)
    duration(state, 1, 1)
    records = history(state)
    assert ["bonus", 1, "clue", "T6"] in records                  # s0's 4 turns did not count
    assert not [e for e in records if e[0] == "bonus" and e[1] == 0]
    first = records.index(["search", 0, 3])
    assert records[first + 2] == ["gold", 0, 6, 49]               # G[4] = 6 instead of G[3] = 4


def test_long_robotic_arm_played_by_the_last_member_completes_the_waiting_group():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(2, 2),
                       events=[INERT, "long_robotic_arm"], rolls=[0] * 4, fallback=15)
    end_window(state, 1)                        # T2
    duration(state, 0, 2)                       # T3: s0 arrives, waits for s1
    play(state, 1, "long_robotic_arm")          # T4: s1 leaves the group: s0 takes D5 at once
    assert decision(state) == "choose_duration" and state.to_act() == [1]
    assert log(state)[-5:] == [["duration", 0, 2, 12], ["bonus", 0, "clue", "D5"],
                               ["move", 1, 2], ["roll", 1, 0, 12], ["arrive", 1, 4]]


def test_long_robotic_arm_is_illegal_after_a_bonus_and_at_depth_6():
    state = start_dive(2, prepares=[(3, 4), (3, 6)], depths=(1, 6),
                       events=["long_robotic_arm", "long_robotic_arm"], rolls=[0] * 12, fallback=16)
    assert plays(state, 0) == [{"type": "play_event", "card": "long_robotic_arm"}]
    end_window(state, 0)
    duration(state, 0, 2)                       # s0 takes T3 at depth 1
    # No window for s0 (bonus received) nor for s1 (depth 6) until s1 arrives at T12.
    assert state.to_act() == [1] and decision(state) == "choose_duration"
    assert player(state, 1)["depth"] == 6
    assert private(state, 0)["events"] == ["long_robotic_arm"]


# --- windows -------------------------------------------------------------------------------------

def test_a_surfaced_seat_keeps_a_window_for_swordfish_but_not_for_perilous_dive():
    state = start_dive(3, prepares=[(3, 4), (3, 4), (3, 4)], depths=(1, 1, 5),
                       events=["perilous_dive", "swordfish", INERT], rolls=[0] * 9, fallback=17)
    end_window(state, 0)                        # R1: s0 descending may play Perilous
    duration(state, 0, 1)
    duration(state, 1, 1)
    end_window(state, 0)                        # R2: s0 searching with 1 token
    end_window(state, 1)                        # R2: Swordfish on s2 possible
    end_window(state, 1)                        # R3 (s0 had no window: 0 tokens)
    # R4: s0 surfaced with Perilous is skipped; s1 surfaced with Swordfish gets a window.
    assert [player(state, s)["status"] for s in range(3)] == ["surfaced", "surfaced", "descending"]
    assert state.to_act() == [1]
    assert plays(state, 1) == [{"type": "play_event", "card": "swordfish", "target": 2}]


def test_a_window_goes_on_after_a_play_while_cards_remain_playable():
    # Dive 1 deals s0 a Swordfish; the two Wall-D cards after it go out at P2 of dive 2.
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 1),
                       events=["swordfish", INERT, "wall_d", "wall_d"], fallback=18)
    finish_dive(state)
    assert private(state, 0)["events"] == ["swordfish", "wall_d"]
    state.apply({s: state.legal_actions(s)[0] for s in state.to_act()})
    for _ in range(2):
        act(state, state.to_act()[0], {"type": "choose_depth", "depth": 4})
    # Play on (ending windows, 1-turn durations) until s0 may play both cards in one window.
    while not (state.to_act() == [0] and {a["card"] for a in plays(state, 0)} == {"wall_d", "swordfish"}):
        assert state.spectator_view()["dive"] == 2
        answer(state)
    play(state, 0, "wall_d", target=1)
    assert state.to_act() == [0] and decision(state) == "event_window"
    assert {a["card"] for a in plays(state, 0)} == {"swordfish"}
    target = plays(state, 0)[0]["target"]
    play(state, 0, "swordfish", target=target)
    assert private(state, 0)["events"] == []
    assert not (state.to_act() == [0] and decision(state) == "event_window")


def test_a_swordfish_double_never_carries_a_diver_past_its_chosen_depth():
    # T1 s0 d1 (0). T2 s1: Swordfish on s0 rolls +1: double; s1 d1 (0). T3 s0: 1 + 2 capped at 2.
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(2, 4), events=[INERT, "swordfish"],
                       rolls=[0, 1, 0, 0], fallback=19)
    play(state, 1, "swordfish", target=0)
    assert decision(state) == "choose_duration" and state.to_act() == [0]
    assert log(state)[-3:] == [["move", 0, 2], ["roll", 0, 0, 11], ["arrive", 0, 4]]


def test_sabotage_hand_is_not_offered_once_the_saboteurs_hand_is_empty_in_dive_4():
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(1, 1), events=["sabotage", INERT],
                       fallback=20)
    for _ in range(3):
        finish_dive(state)
    assert state.spectator_view()["dive"] == 4 and "sabotage" in private(state, 0)["events"]
    state.apply({s: state.legal_actions(s)[0] for s in state.to_act()})
    assert private(state, 0)["hand"] == []
    for _ in range(2):
        act(state, state.to_act()[0], {"type": "choose_depth", "depth": 3})
    while not (state.to_act() == [0] and decision(state) == "event_window"):
        answer(state)
    sabotage = [a for a in plays(state, 0) if a["card"] == "sabotage"]
    assert sabotage and {a["mode"] for a in sabotage} == {"swap"}


# --- every decision's legal actions, from the rules table alone -----------------------------------

def expected_legal(obs):
    """The legal actions of the seat to act, worked out from its observation by §4.1-4.5 alone."""
    seat, you, players = obs["seat"], obs["you"], obs["players"]
    kind = obs["decision"]
    if kind == "prepare":
        hand = you["hand"]
        return [{"type": "prepare", "oxygen": a, "duration": b} for a in sorted(set(hand))
                for b in sorted(set(hand)) if a != b or hand.count(a) >= 2]
    if kind == "choose_depth":
        return [{"type": "choose_depth", "depth": d} for d in range(1, 7)]
    if kind == "choose_duration":
        return [{"type": "choose_duration", "turns": t} for t in range(1, players[seat]["max_card"] + 1)]
    if kind == "choose_bonus":
        return [{"type": "choose_bonus", "bonus": "gold"}, {"type": "choose_bonus", "bonus": "clue"}]
    assert kind == "event_window"

    def active(p):
        return p["status"] == "descending" or (p["status"] == "searching" and p["tokens_left"] >= 1)

    me, held = players[seat], set(you["events"])
    depth = me["chosen_depth"]
    clue_here = (obs["jewel_option"] and obs["jewel_holder"] is None
                 and obs["board_clues"][depth - 1] is not None)
    down = [p["seat"] for p in players if p["status"] == "descending"]
    legal = []
    for card in ("perilous_dive", "bonus_happy", "sabotage", "wall_d", "wall_f", "swordfish",
                 "toughest_diver", "long_robotic_arm"):
        if card not in held:
            continue
        play = {"type": "play_event", "card": card}
        if card == "perilous_dive" and active(me) and not me["perilous"]:
            legal.append(play)
        elif (card == "bonus_happy" and me["status"] == "searching" and obs["assigned"][depth - 1]
              and not me["long_robotic_arm"]):
            if depth >= 4 and not me["received_gold_bonus"]:
                legal.append(dict(play, take="gold"))
            if clue_here and not me["received_clue"]:
                legal.append(dict(play, take="clue"))
        elif card == "sabotage":
            legal += [dict(play, mode="swap", seats=[a, b]) for a in down for b in down if a < b]
            if you["hand"]:
                legal += [dict(play, mode="hand", target=t) for t in down if t != seat]
        elif card in ("wall_d", "wall_f"):
            legal += [dict(play, target=p["seat"]) for p in players if active(p) and p["wall"] is None]
        elif card == "swordfish":
            legal += [dict(play, target=p["seat"]) for p in players
                      if p["depth"] >= 1 and p["status"] in ("descending", "ascending") and p["swordfish"] is None]
        elif (card == "toughest_diver" and me["status"] in ("searching", "ascending")
              and me["received_gold_bonus"] and obs["common_deck_count"] > 0):
            legal.append(play)
        elif (card == "long_robotic_arm" and active(me) and depth <= 5 and not me["received_gold_bonus"]
              and not me["received_clue"] and not me["long_robotic_arm"]):
            legal.append(play)
    # A window opens only while the seat has a legal play (§4.2, §4.5).
    assert legal, f"an event window with no legal play for seat {seat}"
    return legal + [{"type": "end_window"}]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_every_decision_of_seeded_games_offers_exactly_the_actions_the_rules_allow(num_players):
    """§4.5's table and canonical order, checked at every decision of random play (which plays
    event cards often, so most conditions come up in both directions)."""
    for seed in range(30):
        state = GAME.new_state(num_players=num_players, seed=seed)
        chooser = random.Random(seed)
        while not state.is_terminal():
            view = state.spectator_view()
            if view["decision"] == "prepare":
                # P3's hand check (Sabotage exchanges one for one) and P2's draws so far.
                assert all(p["hand_size"] == 10 - 2 * view["dive"] for p in view["players"])
                assert view["event_deck_count"] == 50 - num_players * view["dive"]
            for seat in range(num_players):
                if seat in state.to_act():
                    assert state.legal_actions(seat) == expected_legal(state.observation(seat))
                else:
                    assert state.legal_actions(seat) == []
            state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})


def test_a_swordfish_roll_on_a_perilous_diver_is_not_doubled():
    """§4.4: only own-turn rolls are doubled by Perilous Dive; a Swordfish roll never is."""
    # O 10. T1 s0 plays Perilous, d1, roll -1 x2 (O 8). T2 s1: Swordfish on s0 rolls -3: O 5.
    state = start_dive(2, prepares=[(3, 4), (3, 4)], depths=(4, 4), events=["perilous_dive", "swordfish"],
                       rolls=[-1, -3, 0, -1], fallback=21)
    play(state, 0, "perilous_dive")
    play(state, 1, "swordfish", target=0)
    # T3: the "stay" holds s0 at depth 1; its own roll is doubled again.
    assert log(state)[1:8] == [["move", 0, 1], ["roll", 0, -2, 8], ["swordfish", 0, -3, 5], ["move", 1, 1],
                               ["roll", 1, 0, 5], ["move", 0, 1], ["roll", 0, -2, 3]]


def test_a_diver_that_runs_itself_out_with_a_swordfish_in_its_window_loses_the_rest_of_its_turn():
    """§4.3 step 1 and §4.4 step 4: X's turn ends when X runs out during its own window."""
    # O 1, common 1 and 1. T1 s0 -2 (common 1: O 0), T2 s1 -1 (common 1: O 0). T3 s0's window:
    # Swordfish on itself rolls -1: out, its face-down 5 absorbed; no move, no roll for s0.
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 5), (1, 8)], depths=(3, 3),
                       oxygenator=[1], events=["swordfish", INERT], rolls=[-2, -1, -1, 0], fallback=22)
    assert state.to_act() == [0] and plays(state, 0)[0] == {"type": "play_event", "card": "swordfish", "target": 0}
    play(state, 0, "swordfish", target=0)
    records = log(state)
    at = records.index(["swordfish", 0, -1, -1])
    assert records[at + 1:at + 4] == [["out", 0, 5, 55], ["move", 1, 2], ["roll", 1, 0, 5]]
    assert player(state, 0)["status"] == "out"
