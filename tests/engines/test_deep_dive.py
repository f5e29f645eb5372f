"""Deep Dive engine: worked examples, decisions D1..D12 and hidden information.

Every test runs twice: on the engine the platform plays (engines/deep_dive/state.py) and on the
readable rules engine (engines/deep_dive/reference.py), which test_deep_dive_reference.py plays
against it step by step.

Rules: /work/shared/rules/deep_dive.md. Chance is fixed with ScriptedRandom, in the
engine's documented order: the supply is a bag (D10), so there is no setup shuffle and no
reshuffle; per cycle, for each diver in seat order from the start player, its colour roll and
then the list of tokens it takes; then the shark roll.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engines import IllegalAction, ScriptedRandom, ScriptExhausted, ScriptMismatch
from engines.deep_dive import GAME
from engines.deep_dive.reference import GAME as REFERENCE_GAME

W, B, E = "white", "black", "empty"
STAY, LEAVE = {"type": "stay"}, {"type": "leave"}
SHELLS = {"red": 1, "orange": 1, "yellow": 2, "green": 2, "blue": 3, "purple": 3}


@pytest.fixture(autouse=True, params=["fast", "reference"])
def engine(request, monkeypatch):
    """The engine under test: ``GAME`` is the readable one in the "reference" runs."""
    if request.param == "reference":
        monkeypatch.setitem(globals(), "GAME", REFERENCE_GAME)
    return request.param


def scripted(num_players, outcomes, fallback=None):
    return GAME.new_state(num_players=num_players, seed=0,
                          rng=ScriptedRandom(outcomes, fallback=fallback))


def player(state, seat):
    return state.observation(seat)["players"][seat]


def closed(state, seat):
    return state.full_view()["players"][seat]["closed"]


def bag(state):
    return state.full_view()["supply"]


# --- section 8: worked examples ---------------------------------------------------------

def test_worked_example_round_one_of_three_players_then_round_two_starts_with_seat_1():
    rng = ScriptedRandom([
        "blue", [W, W, E],             # C1: seats 0, 1, 2 roll and take from the 55-token bag
        "red", [B],
        "yellow", [W, W],
        "red",                         # C3: the shark scares seat 1; its B goes back into the bag
        "green", [B, W],               # cycle 2: only seat 2 is in the water
        "purple",                      # shark misses
    ], fallback=4)
    state = GAME.new_state(num_players=3, seed=0, rng=rng)

    obs = state.observation(0)
    assert obs["round"] == 1 and obs["cycle"] == 1 and obs["start_player"] == 0
    assert [p["position"] for p in obs["players"]] == ["blue", None, "yellow"]
    assert [p["closed_shells"] for p in obs["players"]] == [3, 0, 2]
    assert [p["status"] for p in obs["players"]] == ["diving", "scared", "diving"]
    assert obs["last_colour_rolls"] == {"0": "blue", "1": "red", "2": "yellow"}
    assert obs["last_shark_roll"] == "red"
    assert obs["supply_size"] == 50
    assert closed(state, 0) == [W, W, E] and closed(state, 2) == [W, W]
    assert bag(state) == {W: 31, B: 5, E: 14}
    assert [call for call in rng.calls if call.startswith("shuffle")] == []
    assert state.to_act() == [0, 2]
    assert state.legal_actions(0) == state.legal_actions(2) == [{"type": "stay"}, {"type": "leave"}]
    assert state.legal_actions(1) == []

    state.apply({0: LEAVE, 2: STAY})
    obs = state.observation(2)
    assert obs["cycle"] == 2
    assert obs["players"][0]["white_pearls"] == 2 and obs["empties_removed"] == 1
    assert obs["black_pile"] == 0
    assert obs["last_colour_rolls"] == {"2": "green"}
    assert closed(state, 2) == [W, W, B, W]
    assert obs["supply_size"] == 48
    assert state.to_act() == [2]

    state.apply({2: LEAVE})
    obs = state.observation(1)
    assert [p["white_pearls"] for p in obs["players"]] == [2, 0, 3]
    assert obs["black_pile"] == 1 and obs["players"][2]["black_found"] == 1
    assert obs["empties_removed"] == 1
    assert obs["unopened"] == {"white": 30, "black": 4, "empty": 14}
    assert obs["supply_size"] < 48
    assert obs["round"] >= 2 and obs["start_player"] == (obs["round"] - 1) % 3
    assert state.full_view()["history"][2]["start_player"] == 1    # round 2's first cycle
    assert not state.is_terminal()


@pytest.mark.parametrize("fallback", range(6))
def test_worked_example_round_two_begins_inside_the_same_apply_whatever_it_rolls(fallback):
    state = scripted(3, ["blue", [W, W, E], "red", [B], "yellow", [W, W], "red",
                         "green", [B, W], "purple"], fallback=fallback)
    state.apply({0: LEAVE, 2: STAY})
    state.apply({2: LEAVE})
    obs = state.observation(0)
    assert obs["unopened"] == {"white": 30, "black": 4, "empty": 14}
    assert obs["unopened"]["white"] + obs["unopened"]["black"] + obs["unopened"]["empty"] == (
        obs["supply_size"] + sum(p["closed_shells"] for p in obs["players"]))
    assert obs["round"] >= 2 and obs["start_player"] == (obs["round"] - 1) % 3
    assert state.to_act() == [seat for seat in range(3) if obs["players"][seat]["in_water"]]


def end_check_state(seat0_last_roll, seat0_takes):
    """Two players reach: black pile 3, pearls [5, 4], seat 0 holding seat0_takes, seat 1 [B, E, W]."""
    state = scripted(2, ["blue", [W, W, W], "purple", [W, W, B], "red",    # round 1
                         "blue", [W, W, B], "purple", [W, W, B], "red",    # round 2: seat 1 first
                         seat0_last_roll, seat0_takes, "blue", [B, E, W], "red"])
    state.apply({0: LEAVE, 1: LEAVE})
    state.apply({0: LEAVE, 1: LEAVE})
    return state


def test_end_check_example_the_fourth_black_pearl_ends_the_game_and_the_diver_still_in_scores():
    state = end_check_state("yellow", [W, W])
    obs = state.observation(0)
    assert obs["black_pile"] == 3 and [p["white_pearls"] for p in obs["players"]] == [5, 4]
    assert closed(state, 0) == [W, W] and closed(state, 1) == [B, E, W]

    state.apply({0: STAY, 1: LEAVE})
    assert state.is_terminal() and state.to_act() == []
    result = state.result()
    assert result["scores"] == [7, 5] and result["ranks"] == [1, 2]
    assert result["end_reason"] == "black_pearls"
    obs = state.observation(0)
    assert obs["black_pile"] == 4
    assert [p["in_water"] for p in obs["players"]] == [False, False]
    assert [p["closed_shells"] for p in obs["players"]] == [0, 0]


def test_end_check_example_with_an_empty_shell_is_a_shared_win():
    state = end_check_state("orange", [E])
    assert closed(state, 0) == [E]
    state.apply({0: STAY, 1: LEAVE})
    assert state.result()["scores"] == [5, 5]
    assert state.result()["ranks"] == [1, 1]


# --- setup ------------------------------------------------------------------------------

@pytest.mark.parametrize("num_players,whites", [(2, 30), (3, 35), (4, 40)])
def test_setup_removes_white_tokens_by_player_count_d4(num_players, whites):
    state = GAME.new_state(num_players=num_players, seed=1)
    view = state.full_view()
    tokens = Counter(view["supply"])
    for p in view["players"]:
        tokens.update(p["closed"])
    assert tokens == {W: whites, B: 5, E: 15}
    assert state.observation(0)["unopened"] == {"white": whites, "black": 5, "empty": 15}
    assert view["whites_removed_at_setup"] == 40 - whites


def test_it_draws_the_shells_from_the_bag_with_its_seed_d10():
    hauls = {repr([p["closed"] for p in GAME.new_state(num_players=4, seed=seed).full_view()["players"]])
             for seed in range(10)}
    assert len(hauls) == 10
    state = scripted(2, ["orange", [B], "green", [B, E], "red"])
    assert closed(state, 0) == [B] and closed(state, 1) == [B, E]
    assert bag(state) == {W: 30, B: 3, E: 14}


def test_it_rejects_player_counts_outside_two_to_four_and_any_option():
    with pytest.raises(ValueError):
        GAME.new_state(num_players=1, seed=0)
    with pytest.raises(ValueError):
        GAME.new_state(num_players=5, seed=0)
    with pytest.raises(ValueError, match="unknown option"):
        GAME.new_state(num_players=2, seed=0, options={"round_limit": 10})


# --- decisions D1..D12 --------------------------------------------------------------------

@pytest.mark.parametrize("colour", list(SHELLS))
def test_d1_d2_a_diver_moves_to_the_rolled_section_and_takes_its_shells(colour):
    shark = "purple" if colour != "purple" else "red"
    state = scripted(2, [colour, [W] * SHELLS[colour], "orange", [W], shark])
    obs = state.observation(0)
    assert obs["sections"] == [{"colour": c, "shells": n} for c, n in SHELLS.items()]
    assert obs["players"][0]["position"] == colour
    assert obs["players"][0]["closed_shells"] == SHELLS[colour]
    assert obs["supply_size"] == 50 - SHELLS[colour] - 1


def test_d3_the_shark_scares_every_diver_in_its_section_and_their_shells_return():
    state = scripted(3, ["green", [W, B], "yellow", [W, E], "green", [W, W], "green"])
    # Seats 0 and 2 were both in green: both scared at once; seat 1 in yellow decides alone.
    obs = state.observation(1)
    assert [p["status"] for p in obs["players"]] == ["scared", "diving", "scared"]
    assert [p["closed_shells"] for p in obs["players"]] == [0, 2, 0]
    assert [p["position"] for p in obs["players"]] == [None, "yellow", None]
    assert obs["supply_size"] == 55 - 2
    assert state.to_act() == [1]


def test_d3_the_shark_die_has_the_six_colours_and_no_blank_face():
    with pytest.raises(ScriptMismatch):
        scripted(2, ["red", [W], "red", [W], "blank"])


def test_d5_a_diver_who_left_or_was_scared_does_not_dive_again_in_the_same_round():
    # Round 1: seat 1 is scared, seat 0 leaves; seats 2 and 3 stay and are the only ones to roll.
    state = scripted(4, ["red", [W], "blue", [W, W, W], "green", [W, W], "yellow", [W, W], "blue",
                         "orange", [W], "orange", [W], "purple"])
    state.apply({0: LEAVE, 2: STAY, 3: STAY})
    obs = state.observation(0)
    assert obs["last_colour_rolls"] == {"2": "orange", "3": "orange"}
    assert [p["status"] for p in obs["players"]] == ["left", "scared", "diving", "diving"]
    assert state.to_act() == [2, 3]
    assert state.legal_actions(0) == [] and state.legal_actions(1) == []


def test_d6_only_the_most_recent_roll_counts_for_the_shark():
    # Seat 0 dives blue, then red; the shark in blue misses it, the shark in red would not.
    state = scripted(2, ["blue", [W, W, W], "green", [W, W], "yellow",
                         "red", [W], "blue", [W, W, W], "blue"])
    state.apply({0: STAY, 1: STAY})
    assert player(state, 0)["status"] == "diving"
    assert player(state, 0)["position"] == "red"
    assert player(state, 1)["status"] == "scared"
    assert state.to_act() == [0]


def test_d7_a_short_supply_gives_what_is_left_and_ends_the_game_before_the_shark():
    tokens = [W] * 30 + [B] * 5 + [E] * 15   # the order the script takes them in
    # Eight cycles of 3 + 3 shells leave 2; nobody leaves and the shark always misses.
    script = []
    for cycle in range(8):
        script += ["blue", tokens[6 * cycle:6 * cycle + 3], "purple", tokens[6 * cycle + 3:6 * cycle + 6], "red"]
    script += ["purple", tokens[48:], "yellow"]   # seat 1 takes nothing: no draw is scripted for it
    state = scripted(2, script)          # no shark outcome scripted: rolling it would raise
    for _ in range(8):
        state.apply({0: STAY, 1: STAY})
    assert state.is_terminal()
    obs = state.observation(1)
    assert obs["supply_size"] == 0
    assert obs["last_colour_rolls"] == {"0": "purple", "1": "yellow"}   # seat 1 still rolled
    assert obs["last_shark_roll"] is None
    assert state.result()["end_reason"] == "supply_empty"
    # Final surfacing (D9) opened everything: seat 0 took 26 tokens, seat 1 took 24.
    assert [p["white_pearls"] for p in obs["players"]] == [15, 15]
    assert obs["black_pile"] == 5 and obs["empties_removed"] == 15
    assert obs["unopened"] == {"white": 0, "black": 0, "empty": 0}
    assert state.result()["ranks"] == [1, 1]


def test_d8_stay_or_leave_is_one_simultaneous_decision_of_every_diver_in_the_water():
    state = scripted(3, ["red", [W], "orange", [W], "blue", [W, W, W], "green", "yellow", [W, W], "red"])
    assert state.to_act() == [0, 1, 2]
    before = state.full_view()
    with pytest.raises(IllegalAction):
        state.apply({0: LEAVE})
    with pytest.raises(IllegalAction):
        state.apply({0: LEAVE, 1: STAY, 2: {"type": "dive"}})
    assert state.full_view() == before
    state.apply({0: LEAVE, 1: STAY, 2: LEAVE})
    assert [player(state, seat)["status"] for seat in range(3)] == ["left", "diving", "left"]


def test_d9_final_surfacing_scores_every_diver_still_in_the_water():
    state = end_check_state("yellow", [W, W])
    assert player(state, 0)["white_pearls"] == 5
    state.apply({0: STAY, 1: LEAVE})
    assert player(state, 0)["white_pearls"] == 7
    assert player(state, 0)["status"] == "left"


def test_d10_scared_shells_go_back_into_the_bag_and_no_reshuffle_is_drawn():
    rng = ScriptedRandom([
        "red", [W], "red", [W], "red", [B], "red",                    # round 1: everybody scared
        "blue", [B, E, W], "red", [W], "blue", [W, B, B], "blue",     # round 2: seats 1, 2, 0
    ])
    state = GAME.new_state(num_players=3, seed=0, rng=rng)
    assert rng.remaining == 0
    assert bag(state) == {W: 34, B: 5, E: 15}    # everything but seat 2's W is back
    assert state.observation(2)["supply_size"] == 55 - 1
    assert [call for call in rng.calls if call.startswith("shuffle")] == []
    assert [call for call in rng.calls if call.startswith("sample")] == [
        "sample(<bag of 55>, 1)", "sample(<bag of 54>, 1)", "sample(<bag of 53>, 1)",
        "sample(<bag of 55>, 3)", "sample(<bag of 52>, 1)", "sample(<bag of 51>, 3)"]
    assert state.to_act() == [2]


def test_d10_a_take_draws_from_what_is_left_in_the_bag():
    # Five black pearls: a sixth cannot be drawn.
    with pytest.raises(ScriptMismatch):
        scripted(2, ["purple", [B, B, B], "purple", [B, B, B], "red"])
    state = scripted(2, ["purple", [B, B, B], "purple", [B, B, E], "red"])
    assert bag(state) == {W: 30, B: 0, E: 14}
    assert state.observation(0)["unopened"] == {"white": 30, "black": 5, "empty": 15}


def test_d10_no_reshuffle_happens_when_the_shark_scares_nobody():
    rng = ScriptedRandom(["red", [W], "blue", [W, W, W], "green"])
    state = GAME.new_state(num_players=2, seed=0, rng=rng)
    assert rng.remaining == 0 and not any(call.startswith("shuffle") for call in rng.calls)
    assert sum(bag(state).values()) == 46


def test_d11_the_game_stops_after_thirty_rounds_even_if_nobody_is_ever_asked():
    # Every round: both divers land in red and the shark comes to red.
    rng = ScriptedRandom(["red", [W], "red", [W], "red"] * 30)
    state = GAME.new_state(num_players=2, seed=0, rng=rng)
    assert rng.remaining == 0
    assert state.is_terminal()
    view = state.full_view()
    assert view["round"] == 30 and view["rounds_completed"] == 30
    assert len(view["history"]) == 30
    assert state.result() == {"scores": [0, 0], "ranks": [1, 1], "end_reason": "round_limit"}


def test_d11_the_thirtieth_round_ends_the_game_after_a_decision_too():
    rng = ScriptedRandom(["red", [W], "red", [W], "red"] * 29 + ["blue", [W, W, W], "green", [W, W], "red"])
    state = GAME.new_state(num_players=2, seed=0, rng=rng)
    assert state.observation(0)["round"] == 30 and state.to_act() == [0, 1]
    state.apply({0: LEAVE, 1: LEAVE})
    assert state.is_terminal() and state.result()["end_reason"] == "round_limit"
    assert state.observation(0)["round"] == 30


def test_d12_seat_0_starts_and_the_start_player_rotates_each_round():
    # Round 1: all scared. Round 2 starts with seat 1, so seat 1 rolls first.
    state = scripted(3, ["red", [W], "red", [W], "red", [W], "red",
                         "blue", [W, W, W], "green", [W, W], "yellow", [W, W], "red"])
    obs = state.observation(0)
    assert obs["round"] == 2 and obs["start_player"] == 1
    assert [p["position"] for p in obs["players"]] == ["yellow", "blue", "green"]
    assert state.full_view()["history"][0]["start_player"] == 0


# --- opening shells ---------------------------------------------------------------------

def test_leaving_opens_every_closed_shell_whites_score_blacks_go_to_the_pile_empties_leave():
    state = scripted(2, ["blue", [W, B, E], "yellow", [W, W], "red", "green", [W, W], "red"])
    state.apply({0: LEAVE, 1: STAY})
    obs = state.observation(1)
    me = obs["players"][0]
    assert (me["white_pearls"], me["black_found"], me["closed_shells"]) == (1, 1, 0)
    assert (me["in_water"], me["status"], me["position"]) == (False, "left", None)
    assert obs["black_pile"] == 1 and obs["empties_removed"] == 1
    assert obs["unopened"] == {"white": 29, "black": 4, "empty": 14}


def test_staying_keeps_shells_closed_and_dives_again():
    state = scripted(2, ["blue", [W, B, E], "yellow", [W, W], "red", "red", [W], "orange", [W], "green"])
    state.apply({0: STAY, 1: STAY})
    obs = state.observation(0)
    assert [p["closed_shells"] for p in obs["players"]] == [4, 3]
    assert obs["unopened"] == {"white": 30, "black": 5, "empty": 15}
    assert [p["white_pearls"] for p in obs["players"]] == [0, 0]


# --- hidden information (section 5) ---------------------------------------------------

def first_cycle(num_players, seed):
    """A first cycle in which every diver takes random tokens (chosen by ``seed``) and nobody is scared."""
    chooser = random.Random(seed)
    supply = [W] * (40 - {2: 10, 3: 5, 4: 0}[num_players]) + [B] * 5 + [E] * 15
    chooser.shuffle(supply)
    script = []
    for colour in ["blue", "purple", "yellow", "green"][:num_players]:
        script += [colour, supply[:SHELLS[colour]]]
        del supply[:SHELLS[colour]]
    return script + ["red"]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_first_observation_holds_no_secret_at_all(num_players):
    states = [scripted(num_players, first_cycle(num_players, seed)) for seed in range(6)]
    assert len({repr(state.full_view()) for state in states}) == 6
    for seat in range(num_players):
        seen = [state.observation(seat) for state in states]
        assert all(obs == seen[0] for obs in seen)
    assert all(state.spectator_view() == states[0].spectator_view() for state in states)


def test_a_diver_never_sees_the_content_of_its_own_closed_shells():
    lucky = scripted(2, ["blue", [W, W, W], "red", [E], "green"])
    unlucky = scripted(2, ["blue", [B, E, E], "red", [W], "green"])
    assert closed(lucky, 0) != closed(unlucky, 0)
    for seat in range(2):
        assert lucky.observation(seat) == unlucky.observation(seat)


def test_hidden_differences_stay_hidden_through_a_played_game_until_shells_open():
    for seed in range(5):
        a = scripted(3, ["purple", [W, W, W]], fallback=100 + seed)
        b = scripted(3, ["purple", [B, E, E]], fallback=100 + seed)
        while not a.is_terminal() and not any(p["status"] == "left" for p in a.full_view()["players"]):
            assert a.to_act() == b.to_act()
            for seat in range(3):
                assert a.observation(seat) == b.observation(seat)
            moves = {seat: STAY for seat in a.to_act()}
            a.apply(moves)
            b.apply(moves)


def test_observations_show_counts_only_and_the_full_view_shows_contents():
    state = GAME.new_state(num_players=4, seed=9)
    obs = state.observation(2)
    assert obs["seat"] == 2
    assert set(obs) == {"seat", "round", "cycle", "start_player", "num_players", "sections",
                        "players", "last_colour_rolls", "last_shark_roll", "black_pile",
                        "empties_removed", "supply_size", "unopened", "round_limit", "events"}
    # Before its first decision: the first cycle (rolls and shark), no shell contents.
    assert [event["type"] for event in obs["events"]] == ["cycle"]
    assert set(obs["events"][0]) == {"type", "round", "cycle", "start_player", "colour_rolls",
                                     "shark_roll", "scared"}
    assert all(set(p) == {"in_water", "status", "position", "closed_shells", "white_pearls",
                          "black_found"} for p in obs["players"])
    view = state.full_view()
    assert sum(view["supply"].values()) == obs["supply_size"]
    assert [len(p["closed"]) for p in view["players"]] == [p["closed_shells"] for p in obs["players"]]
    assert "supply" not in state.spectator_view()
    assert all("closed" not in p for p in state.spectator_view()["players"])


def test_an_observation_can_be_asked_for_a_seat_out_of_the_water_and_after_the_end():
    state = end_check_state("yellow", [W, W])
    state.apply({0: STAY, 1: LEAVE})
    for seat in range(2):
        obs = state.observation(seat)
        assert obs["seat"] == seat and obs["round"] == 3
    with pytest.raises(ValueError):
        state.observation(2)


def test_a_clone_continues_with_the_same_chance_and_does_not_touch_its_source():
    state = GAME.new_state(num_players=3, seed=21)
    twin = state.clone()
    before = state.full_view()
    while not twin.is_terminal():
        twin.apply({seat: LEAVE for seat in twin.to_act()})
    assert state.full_view() == before
    while not state.is_terminal():
        state.apply({seat: LEAVE for seat in state.to_act()})
    assert state.full_view() == twin.full_view()


def test_a_scripted_source_that_runs_out_fails_loudly():
    with pytest.raises(ScriptExhausted):
        scripted(2, ["red"])


# --- engine contract details ----------------------------------------------------------

def test_chance_comes_in_the_documented_order_dives_from_the_start_player_then_the_shark():
    rng = ScriptedRandom(["red", [W], "blue", [W, W, W], "red", [E], "red"])
    state = GAME.new_state(num_players=3, seed=0, rng=rng)
    assert rng.calls == ["choice(<6 items>)", "sample(<bag of 55>, 1)",
                         "choice(<6 items>)", "sample(<bag of 54>, 3)",
                         "choice(<6 items>)", "sample(<bag of 51>, 1)", "choice(<6 items>)"]
    assert rng.keys == [("round", 1), ("shark", 1)]
    assert state.observation(0)["last_colour_rolls"] == {"0": "red", "1": "blue", "2": "red"}
    assert [player(state, seat)["status"] for seat in range(3)] == ["scared", "diving", "scared"]


@pytest.mark.parametrize("bad", [
    {0: {"type": "STAY"}, 1: STAY},
    {0: {"type": "stay", "extra": 1}, 1: STAY},
    {0: "stay", 1: STAY},
    {0: None, 1: STAY},
    {"0": STAY, "1": STAY},
    {0: STAY, 1: STAY, 2: STAY},
    [STAY, STAY],
])
def test_it_rejects_malformed_choices_and_changes_nothing(bad):
    state = scripted(2, ["red", [W], "blue", [W, W, W], "green"])
    before = state.full_view()
    with pytest.raises(IllegalAction):
        state.apply(bad)
    assert state.full_view() == before and state.to_act() == [0, 1]


def test_the_spectator_view_says_who_acts_and_why_the_game_ended():
    state = end_check_state("yellow", [W, W])
    view = state.spectator_view()
    assert view["to_act"] == [0, 1] and view["game_over"] is False and view["end_reason"] is None
    state.apply({0: STAY, 1: LEAVE})
    view = state.spectator_view()
    assert view["to_act"] == [] and view["game_over"] is True and view["end_reason"] == "black_pearls"
    assert [p["white_pearls"] for p in view["players"]] == [7, 5]


def test_the_full_view_records_every_roll_of_the_game():
    state = end_check_state("yellow", [W, W])
    state.apply({0: STAY, 1: LEAVE})
    assert state.full_view()["history"] == [
        {"round": 1, "cycle": 1, "start_player": 0, "colour_rolls": {"0": "blue", "1": "purple"},
         "shark_roll": "red"},
        {"round": 2, "cycle": 1, "start_player": 1, "colour_rolls": {"0": "purple", "1": "blue"},
         "shark_roll": "red"},
        {"round": 3, "cycle": 1, "start_player": 0, "colour_rolls": {"0": "yellow", "1": "blue"},
         "shark_roll": "red"},
    ]


def test_events_tell_who_stayed_who_left_what_the_opened_shells_held_and_the_next_rolls():
    # Cycle 1: seat 0 blue (W, B, E), seat 1 red (W); shark green. Seat 0 leaves, seat 1 stays.
    # Cycle 2: seat 1 yellow (E, E); shark yellow scares it: the round ends, round 2 begins.
    state = scripted(2, ["blue", [W, B, E], "red", [W], "green",
                         "yellow", [E, E], "yellow"], fallback=5)
    first = state.observation(0)["events"]
    assert first == [{"type": "cycle", "round": 1, "cycle": 1, "start_player": 0,
                      "colour_rolls": {"0": "blue", "1": "red"}, "shark_roll": "green", "scared": []}]
    # Closed shells are counts only, before and after the decision.
    assert closed(state, 0) == [W, B, E] and "white" not in json.dumps(first)
    state.apply({0: LEAVE, 1: STAY})
    events = state.observation(0)["events"]
    assert events[:4] == [
        {"type": "choices", "stayed": [1], "left": [0]},
        {"type": "surface", "seat": 0, "white": 1, "black": 1, "empty": 1},
        {"type": "cycle", "round": 1, "cycle": 2, "start_player": 0, "colour_rolls": {"1": "yellow"},
         "shark_roll": "yellow", "scared": [1]},
        {"type": "round_end", "round": 1},
    ]
    assert events[4]["type"] == "cycle" and events[4]["round"] == 2
    # Seat 1 decided at the same C5: its events are the same.
    assert state.observation(1)["events"] == events


# --- end of game (section 6) and invariants of seeded play ----------------------------------

@pytest.mark.parametrize("seat_2", [STAY, LEAVE])
def test_the_black_pearls_of_several_leavers_together_end_the_game_at_c7(seat_2):
    # Round 1: everybody leaves with one black pearl for seats 0 and 1 (pile 2). Round 2 (seat 1
    # starts): seats 0 and 1 leave with one black each: 4 at once ends the game at C7; seat 2's
    # shells open whether it stayed (final surfacing, D9) or left with them.
    state = scripted(3, ["blue", [B, W, W], "purple", [B, W, W], "yellow", [W, W], "red",
                         "blue", [B, W, W], "green", [W, E], "purple", [B, E, W], "red"])
    state.apply({0: LEAVE, 1: LEAVE, 2: LEAVE})
    assert state.observation(0)["black_pile"] == 2 and state.to_act() == [0, 1, 2]
    state.apply({0: LEAVE, 1: LEAVE, 2: seat_2})
    assert state.is_terminal()
    obs = state.observation(2)
    assert obs["black_pile"] == 4 and obs["round"] == 2
    assert [p["white_pearls"] for p in obs["players"]] == [3, 4, 3]
    assert [p["black_found"] for p in obs["players"]] == [2, 2, 0]
    assert obs["empties_removed"] == 2
    # The game ended inside round 2: it is not a completed round and no round 3 began.
    assert state.full_view()["rounds_completed"] == 1
    assert "round_end" not in [event["type"] for event in obs["events"]]
    assert state.result() == {"scores": [3, 4, 3], "ranks": [2, 1, 2], "end_reason": "black_pearls"}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seeded_play_keeps_the_public_counts_consistent_and_ends_for_a_stated_reason(num_players):
    """Section 5's counts and section 6's ends on the engine's own (keyed) chance, where the
    black pile is kept apart from the opened shells that show who found each black pearl."""
    for seed in range(25):
        state = GAME.new_state(num_players=num_players, seed=seed)
        chooser = random.Random(seed)
        while True:
            obs = state.spectator_view()
            players = obs["players"]
            unopened = obs["unopened"]
            assert sum(unopened.values()) == obs["supply_size"] + sum(p["closed_shells"] for p in players)
            assert obs["black_pile"] == sum(p["black_found"] for p in players) == 5 - unopened["black"]
            if state.is_terminal():
                break
            assert obs["black_pile"] < 4 and obs["supply_size"] > 0
            assert state.to_act() == [seat for seat, p in enumerate(players) if p["in_water"]]
            assert all(p["status"] == "diving" for p in players if p["in_water"])
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        result = state.result()
        reason = result["end_reason"]
        assert reason in ("black_pearls", "supply_empty", "round_limit")
        if reason == "black_pearls":
            assert obs["black_pile"] >= 4
        elif reason == "supply_empty":
            assert obs["supply_size"] == 0
        else:
            assert state.full_view()["rounds_completed"] == 30
        assert all(not p["in_water"] and p["closed_shells"] == 0 for p in obs["players"])
        scores = [p["white_pearls"] for p in obs["players"]]
        assert result["scores"] == scores
        assert result["ranks"] == [1 + sum(other > mine for other in scores) for mine in scores]
