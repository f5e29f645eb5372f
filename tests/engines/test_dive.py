"""Dive engine: the worked example of dive.md section 8, the observation of 5.2, legal-action
orders and counts (4.2, 4.3), setup, and the engine API around them."""

from __future__ import annotations

import copy
import json

import pytest

from engines import IllegalAction
from engines.rng import ScriptedRandom
from tests.engines.dive_support import GAME, air, deal, plan, play_round, right_calls

# Rounds 1..9 use every card once; the discard pile is reshuffled at the start of round 10.
HISTORY_ORDER = [11, 22, 23, 24, 5, 12, 25, 26, 27, 33, 13, 28, 34, 35, 10, 0, 6, 14, 15,
                 1, 7, 16, 2, 8, 17, 3, 18, 19, 9, 20, 21, 4, 29, 30, 31, 32]
REFILL_ORDER = [3, 22, 14, 9, 27, 0, 30, 17, 12, 33, 19, 7, 24]
REFILL_ORIENTATIONS = [1, 0, 3, 2, 1, 0, 3, 2, 0, 1, 0, 0, 2]


def _round(state, depths):
    """One history round: ``depths[seat]`` = (depth, wrong level or None)."""
    plans = {seat: plan(right_calls(state, depth, wrong)) for seat, (depth, wrong) in depths.items()}
    return play_round(state, plans)


def reach_round_12():
    """Plays rounds 1..11 so that round 12 starts exactly as in dive.md 5.2 and 8.

    Seat 2 dives alone to space 17 in rounds 1..3, then explores (and is wiped in deep
    water) every round; seats 0 and 1 only ever pass cards without helpers.
    """
    refill = [REFILL_ORDER, *REFILL_ORIENTATIONS, *[0] * (36 - len(REFILL_ORIENTATIONS))]
    state = deal(3, HISTORY_ORDER, extra=refill, fallback=None)
    fail = (1, 1)
    script = [
        {0: fail, 1: fail, 2: (5, None)},
        {0: fail, 1: fail, 2: (5, None)},
        {0: fail, 1: fail, 2: (5, 5)},
        {0: (1, None), 1: (2, None), 2: (4, 4)},
        {0: (1, None), 1: (2, None), 2: (3, 3)},
        {0: (1, None), 1: (2, None), 2: (3, 3)},
        {0: (1, None), 1: (1, None), 2: (3, 3)},
        {0: fail, 1: (1, None), 2: (3, 3)},
        {0: fail, 1: (1, None), 2: (5, 5)},
        {0: (1, None), 1: (1, None), 2: (3, 3)},
        {0: (1, None), 1: (1, None), 2: (5, 5)},
    ]
    for depths in script:
        _round(state, depths)
    return state


EXAMPLE_OBSERVATION = {
    "phase": "plan", "round": 12, "seat": 0, "num_players": 3, "solo": False,
    "positions": [6, 11, 17], "chief_position": None,
    "ocean_view": [None, {"species": "turtle", "tint": 5}, {"species": "manta", "tint": 7},
                   {"species": "turtle", "tint": 5}, {"species": "turtle", "tint": 2},
                   {"species": "shark", "tint": 4}, {"species": "manta", "tint": 4}, None, None],
    "carried_levels": 0, "stack_size": 28,
    "discard": [[3, 1], [22, 0], [14, 3], [9, 2], [27, 1], [0, 0], [30, 3], [17, 2]],
    "companions": None,
    "my_plan": None,
}
EXAMPLE_PLANS = {
    0: plan(["air", "shark", "air"]),
    1: plan(["air", "shark", "air", "air"]),
    2: plan(["air", "air", "air", "shark"]),
}
EXAMPLE_TOKENS = {0: air([1, 3, 3, 1, 2]), 1: air([1, 3, 4, 2, 3]), 2: air([2, 3, 3, 4, 1])}


def test_the_worked_example_round_12_starts_with_the_observation_of_section_5_2():
    state = reach_round_12()
    observation = state.observation(0)
    last = observation.pop("last_round")
    assert last["round"] == 11
    # What the table saw since Decision B of round 11: the reveal, the explored levels, the rest.
    events = observation.pop("events")
    assert [e["type"] for e in events] == ["reveal"] + ["level"] * len(last["levels"]) + ["rest"]
    assert events[0]["plans"] == last["plans"] and events[-1]["positions"] == last["positions"]
    assert [{k: v for k, v in e.items() if k not in ("type", "level")} for e in events[1:-1]] == last["levels"]
    assert observation == EXAMPLE_OBSERVATION
    assert state.full_view()["stack"][:5] == [[12, 0], [33, 1], [19, 0], [7, 0], [24, 2]]


def test_the_worked_example_plans_and_placements_have_the_canonical_indices_of_section_8():
    state = reach_round_12()
    assert [state.legal_actions(seat).index(EXAMPLE_PLANS[seat]) for seat in range(3)] == [8, 18, 15]
    state.apply(EXAMPLE_PLANS)
    assert state.observation(0)["phase"] == "air"
    assert state.observation(0)["my_plan"] == EXAMPLE_PLANS[0]
    assert [len(state.legal_actions(seat)) for seat in range(3)] == [150, 240, 240]
    assert [state.legal_actions(seat).index(EXAMPLE_TOKENS[seat]) for seat in range(3)] == [45, 38, 94]


def test_the_worked_example_resolves_round_12_as_section_8_says():
    state = reach_round_12()
    state.apply(EXAMPLE_PLANS)
    state.apply(EXAMPLE_TOKENS)
    observation = state.observation(1)
    log = observation["last_round"]
    assert log["round"] == 12
    assert [p["bids"] for p in log["plans"]] == [[5, 5, 5], [1, 4, 7, 3], [5, 1, 5, 4]]
    assert [p["calls"] for p in log["plans"]] == [EXAMPLE_PLANS[s]["calls"] for s in range(3)]
    assert [p["token_levels"] for p in log["plans"]] == [EXAMPLE_TOKENS[s]["token_levels"] for s in range(3)]
    assert [p["companion"] for p in log["plans"]] == [None, None, None]
    assert log["chief"] is None
    assert log["levels"] == [
        {"card": 12, "orientation": 0, "wrong": [], "forgiven": [], "helper": None},
        {"card": 33, "orientation": 1, "wrong": [2], "forgiven": [],
         "helper": {"kind": "manta", "winner": 0, "to": 11}},
        {"card": 19, "orientation": 0, "wrong": [], "forgiven": [],
         "helper": {"kind": "turtle", "winner": 1, "to": 13}},
        {"card": 7, "orientation": 0, "wrong": [1], "forgiven": [], "helper": None},
    ]
    assert log["succeeded"] == [3, 3, 1]
    assert log["wiped"] == [False, False, True]
    assert log["advance"] == [8, 5, 0]
    assert log["positions"] == [14, 16, 17]
    assert log["chief_position"] is None
    # Clean-up: 4 explored cards discarded in level order; card 24 stays on top as level 1.
    assert observation["round"] == 13 and observation["phase"] == "plan"
    assert observation["positions"] == [14, 16, 17]
    assert observation["discard"][-4:] == [[12, 0], [33, 1], [19, 0], [7, 0]]
    assert observation["carried_levels"] == 1
    assert observation["stack_size"] == 24
    assert state.full_view()["stack"][0] == [24, 2]
    assert observation["ocean_view"][2] == {"species": "manta", "tint": 1}


def test_the_ocean_view_of_the_worked_example_hides_the_level_4_shark_under_the_level_1_turtle():
    state = deal(3, [(12, 0), (33, 1), (19, 0), (7, 0), (24, 2)])
    view = state.observation(2)["ocean_view"]
    assert view == EXAMPLE_OBSERVATION["ocean_view"]
    assert view[4] == {"species": "turtle", "tint": 2}


def test_d7_plan_legal_actions_are_62_in_canonical_order_and_index_8_is_air_shark_air():
    state = GAME.new_state(num_players=2, seed=1)
    legal = state.legal_actions(0)
    assert len(legal) == 2 + 4 + 8 + 16 + 32 == 62
    assert legal[0] == plan(["air"]) and legal[1] == plan(["shark"])
    assert legal[2] == plan(["air", "air"]) and legal[5] == plan(["shark", "shark"])
    assert legal[8] == plan(["air", "shark", "air"])
    assert legal[-1] == plan(["shark"] * 5)
    assert state.legal_actions(1) == legal


def test_d7_plan_legal_actions_with_companions_are_124_and_false_comes_before_true():
    state = GAME.new_state(num_players=2, seed=1, options={"companions": True})
    legal = state.legal_actions(0)
    assert len(legal) == 124
    assert legal[:4] == [plan(["air"], False), plan(["air"], True),
                         plan(["shark"], False), plan(["shark"], True)]
    assert legal[16] == plan(["air", "shark", "air"], False)
    assert legal[17] == plan(["air", "shark", "air"], True)


@pytest.mark.parametrize("depth,count", [(1, 1), (2, 30), (3, 150), (4, 240), (5, 120)])
def test_d5_d6_d7_air_legal_actions_count_1_30_150_240_120_by_depth(depth, count):
    state = GAME.new_state(num_players=1, seed=2)
    state.apply({0: plan(["air"] * depth)})
    legal = state.legal_actions(0)
    assert len(legal) == count
    assert all(sorted(set(a["token_levels"])) == list(range(1, depth + 1)) for a in legal)
    assert all(len(a["token_levels"]) == 5 for a in legal)
    # itertools.product order, filtered: lexicographic on the vector.
    assert [a["token_levels"] for a in legal] == sorted(a["token_levels"] for a in legal)


def test_a_seat_with_depth_1_is_still_asked_and_has_the_single_placement_all_on_level_1():
    state = GAME.new_state(num_players=2, seed=3)
    state.apply({0: plan(["air"]), 1: plan(["shark", "air"])})
    assert state.to_act() == [0, 1]
    assert state.legal_actions(0) == [air([1, 1, 1, 1, 1])]
    assert air([1, 2, 1, 1, 1]) in state.legal_actions(1)


def test_it_rejects_a_placement_that_skips_a_level_or_goes_deeper_than_the_plan_and_changes_nothing():
    state = GAME.new_state(num_players=2, seed=4)
    state.apply({0: plan(["air", "air", "air"]), 1: plan(["air"])})
    before = state.full_view()
    for bad in ([1, 1, 3, 3, 3], [1, 2, 3, 4, 4], [1, 2, 3, 3], [1, 2, 3, 3, 3, 3]):
        with pytest.raises(IllegalAction):
            state.apply({0: air(bad), 1: air([1] * 5)})
        assert state.full_view() == before
    with pytest.raises(IllegalAction):
        state.apply({0: {"type": "air", "token_levels": (1, 2, 3, 3, 3)}, 1: air([1] * 5)})


def test_it_rejects_an_empty_plan_a_six_level_plan_and_an_unknown_call():
    state = GAME.new_state(num_players=2, seed=4)
    for bad in (plan([]), plan(["air"] * 6), plan(["air", "whale"]), plan(["air"], companion=True)):
        with pytest.raises(IllegalAction):
            state.apply({0: bad, 1: plan(["air"])})
    assert state.observation(0)["phase"] == "plan"


def test_an_equal_action_written_with_true_or_1_0_is_logged_with_the_engine_s_own_integers():
    state = GAME.new_state(num_players=2, seed=4, options={"companions": True})
    state.apply({0: {"type": "plan", "calls": ["air", "air"], "companion": 1},
                 1: plan(["air", "air"], companion=False)})
    assert state.observation(0)["my_plan"]["companion"] is True
    state.apply({0: {"type": "air", "token_levels": [True, 2.0, 1, 1, 1]}, 1: air([1, 2, 1, 1, 1])})
    logged = state.observation(1)["last_round"]["plans"][0]
    assert logged["token_levels"] == [1, 2, 1, 1, 1]
    assert [type(level) for level in logged["token_levels"]] == [int] * 5
    assert logged["companion"] == state.observation(1)["companions"][0]["id"]


def test_a_legal_action_cannot_be_changed_in_place_so_no_other_game_is_affected():
    state = GAME.new_state(num_players=2, seed=4)
    legal = state.legal_actions(0)
    with pytest.raises(TypeError):
        legal[0]["calls"] = ["shark"]
    with pytest.raises(TypeError):
        legal[0]["calls"].append("shark")
    legal.reverse()                              # the list itself is the caller's own
    other = GAME.new_state(num_players=2, seed=5)
    assert other.legal_actions(1)[0] == plan(["air"])
    copied = copy.deepcopy(state.legal_actions(0)[1])
    assert json.loads(json.dumps(copied)) == plan(["shark"])
    state.apply({0: json.loads(json.dumps(copied)), 1: plan(["air"])})
    placement = state.legal_actions(0)[0]
    with pytest.raises(TypeError):
        placement["token_levels"][0] = 2
    assert placement == air([1] * 5)


def test_every_seat_acts_at_both_decisions_and_the_round_advances_after_the_air_decision():
    state = GAME.new_state(num_players=4, seed=5)
    assert state.to_act() == [0, 1, 2, 3]
    state.apply({seat: plan(["air"]) for seat in range(4)})
    assert state.to_act() == [0, 1, 2, 3]
    assert state.observation(2)["round"] == 1
    state.apply({seat: air([1] * 5) for seat in range(4)})
    assert state.observation(2)["round"] == 2
    assert state.observation(2)["phase"] == "plan"


def test_between_the_two_decisions_the_events_say_only_that_the_plans_were_made():
    state = GAME.new_state(num_players=2, seed=5)
    assert state.observation(0)["events"] == []
    for round_ in (1, 2):
        state.apply({seat: plan(["air"]) for seat in range(2)})
        assert [state.observation(seat)["events"] for seat in range(2)] == [[{"type": "plans_made", "round": round_}]] * 2
        state.apply({seat: air([1] * 5) for seat in range(2)})
        assert state.observation(0)["events"][0]["type"] == "reveal"


def test_setup_shuffles_then_orients_every_card_in_stack_order_then_deals_companions():
    order = list(range(35, -1, -1))
    rng = ScriptedRandom([order, *[i % 4 for i in range(36)],
                          ["seahorse", "octopus", "dolphin", "pilot_fish", "sailfish"]])
    state = GAME.new_state(num_players=3, seed=0, options={"companions": True}, rng=rng)
    assert rng.remaining == 0
    assert rng.calls[0] == "shuffle(<36 items>)"
    assert rng.calls[1:37] == ["randrange(0, 4, 1)"] * 36
    assert state.full_view()["stack"] == [[card, i % 4] for i, card in enumerate(order)]
    assert state.observation(0)["companions"] == [
        {"id": "seahorse", "used": False}, {"id": "octopus", "used": False},
        {"id": "dolphin", "used": False}]
    observation = state.observation(1)
    assert observation["positions"] == [0, 0, 0] and observation["round"] == 1
    assert observation["discard"] == [] and observation["last_round"] is None
    assert observation["stack_size"] == 36 and observation["carried_levels"] == 0


def test_the_game_describes_itself():
    assert GAME.id == "dive" and GAME.title == "Dive"
    assert (GAME.min_players, GAME.max_players) == (1, 5)
    assert GAME.default_options == {"companions": False}
    assert GAME.info.simultaneous and GAME.info.chance
    assert GAME.info.rules_file.endswith("rules/dive.md")
    assert set(GAME.bots) >= {"random", "heuristic"}


def test_it_rejects_a_non_boolean_companions_option():
    with pytest.raises(ValueError):
        GAME.new_state(num_players=2, seed=1, options={"companions": "yes"})


def test_a_clone_continues_exactly_like_its_source():
    state = GAME.new_state(num_players=3, seed=9, options={"companions": True})
    twin = state.clone()
    for target in (state, twin):
        play_round(target, {s: plan(["air", "shark"], False) for s in range(3)})
    assert twin.full_view() == state.full_view()
    play_round(twin, {s: plan(["air"], True) for s in range(3)})
    assert twin.full_view() != state.full_view()
    assert state.observation(0)["round"] == 2
