"""Dive engine: one scenario per rule decision D1..D17 of dive.md section 7 with an observable
effect, plus the automatic rules of 4.4 to 4.9 (turtles, mantas, deep water, wipes, clean-up,
reshuffle, end of game, solo chief, companions). Chance is fixed with ScriptedRandom."""

from __future__ import annotations

import pytest

from engines import IllegalAction
from tests.engines.dive_support import GAME, PRINTED, SPECIES, deal, plan, play_round, right_calls

OPEN = [0, 1, 2, 3, 4, 5]


def tie_rounds(state, rounds: int, companions: bool = False) -> None:
    """Rounds in which every seat dives 5 levels with right calls and the same tokens: every
    helper contest is a tie, so every seat advances exactly 5 per round."""
    for _ in range(rounds):
        calls = right_calls(state, 5)
        play_round(state, {s: plan(calls, False if companions else None) for s in state.to_act()})


# Fifteen cards for three tie rounds (never used by the scenarios that follow them).
TIE_PREFIX = [2, 3, 4, 5, 7, 8, 9, 10, 14, 15, 16, 17, 24, 25, 26]


# --- D1, D2, D4: players, cards, orientations ------------------------------------------------

def test_d1_five_players_play_and_six_are_refused():
    state = GAME.new_state(num_players=5, seed=1, options={"companions": True})
    assert state.to_act() == [0, 1, 2, 3, 4]
    ids = [c["id"] for c in state.observation(0)["companions"]]
    assert sorted(ids) == sorted(["octopus", "dolphin", "pilot_fish", "sailfish", "seahorse"])
    with pytest.raises(ValueError):
        GAME.new_state(num_players=6, seed=1)


@pytest.mark.parametrize("card", sorted(PRINTED))
def test_d2_each_card_shows_its_printed_creatures_and_haze_as_level_1(card):
    # Levels 2..5 are open water, so the view shows exactly card's creatures, tinted by its haze.
    state = deal(2, [(card, 0)] + [(c, 0) for c in OPEN if c != card][:4])
    codes, haze = PRINTED[card]
    expected = [None] * 9
    for code in codes.split():
        expected[int(code[:-1])] = {"species": SPECIES[code[-1]], "tint": haze}
    assert state.observation(0)["ocean_view"] == expected


def test_d2_the_card_mix_has_the_totals_of_the_rules():
    parsed = {card: [c[-1] for c in codes.split()] for card, (codes, _) in PRINTED.items()}
    assert len(PRINTED) == 36
    assert sum("S" in cs for cs in parsed.values()) == 12
    assert sum(cs.count("S") for cs in parsed.values()) == 12
    assert sum(cs.count("T") for cs in parsed.values()) == 20
    assert sum("T" in cs for cs in parsed.values()) == 15
    assert sum("M" in cs for cs in parsed.values()) == 10
    assert sum(not ("T" in cs or "M" in cs) for cs in parsed.values()) == 11
    assert sum(h == 1 for _, h in PRINTED.values()) == 18
    assert not any("T" in cs and "M" in cs for cs in parsed.values())


@pytest.mark.parametrize("k,cell", [(0, 0), (1, 2), (2, 8), (3, 6)])
def test_d4_an_orientation_turns_the_card_clockwise(k, cell):
    state = deal(1, [(6, k), 0, 1, 2, 3])
    view = state.observation(0)["ocean_view"]
    assert [i for i, e in enumerate(view) if e] == [cell]
    assert view[cell] == {"species": "shark", "tint": 2}


def test_d4_a_turn_moves_every_printed_cell_as_the_rot_table_says():
    # rot = [2, 5, 8, 1, 4, 7, 0, 3, 6]: card 33 (1S 8M) turned once shows S in 5, M in 6.
    state = deal(1, [(33, 1), 0, 1, 2, 3])
    view = state.observation(0)["ocean_view"]
    assert view[5] == {"species": "shark", "tint": 2} and view[6] == {"species": "manta", "tint": 2}
    state = deal(1, [(32, 3), 0, 1, 2, 3])  # 6S 0T 2T turned three times
    view = state.observation(0)["ocean_view"]
    # rot^3 (= one counter-clockwise turn): 6 -> 8, 0 -> 6, 2 -> 0.
    assert view[8]["species"] == "shark" and view[6]["species"] == "turtle" and view[0]["species"] == "turtle"


# --- D3: perception ---------------------------------------------------------------------------

def test_d3_a_deeper_creature_in_a_covered_cell_is_hidden_and_tints_add_up():
    # L1 card 7 (shark in 4, h1); L2 card 22 (manta in 4, h1): hidden; L3 card 11 (turtle in 2, h1).
    state = deal(2, [7, 22, 11, 0, 2])
    view = state.observation(1)["ocean_view"]
    assert view[4] == {"species": "shark", "tint": 1}
    assert view[2] == {"species": "turtle", "tint": 3}
    assert sum(e is not None for e in view) == 2


# --- D5, D6, D14: exploration, tokens and clean-up ---------------------------------------------

def test_d5_d14_only_levels_somebody_holds_are_explored_and_the_others_stay_on_top():
    state = deal(2, [0, 1, 2, 3, 4])
    log = play_round(state, {0: plan(["air", "air"]), 1: plan(["air"])})
    assert [level["card"] for level in log["levels"]] == [0, 1]
    observation = state.observation(0)
    assert observation["discard"] == [[0, 0], [1, 0]]
    assert observation["carried_levels"] == 3
    assert state.full_view()["stack"][:3] == [[2, 0], [3, 0], [4, 0]]
    assert observation["stack_size"] == 34


def test_d5_level_1_is_explored_even_when_every_call_there_is_wrong():
    state = deal(2, [6, 0, 1, 2, 3])
    log = play_round(state, {0: plan(["air", "air", "air"]), 1: plan(["air"])})
    assert log["levels"] == [{"card": 6, "orientation": 0, "wrong": [0, 1], "forgiven": [], "helper": None}]
    assert log["succeeded"] == [0, 0] and log["advance"] == [0, 0]
    assert state.observation(0)["discard"] == [[6, 0]]


def test_d6_a_bid_is_the_sum_of_the_token_values_placed_on_the_level():
    state = deal(2, [0, 1, 2, 3, 4])
    log = play_round(state, {0: plan(["air"] * 3), 1: plan(["air"] * 2)},
                     {0: [3, 1, 2, 3, 3], 1: [2, 2, 2, 2, 1]})
    assert log["plans"][0]["bids"] == [2, 3, 10]
    assert log["plans"][1]["bids"] == [5, 10]


def test_d14_the_discard_pile_is_shuffled_beneath_the_leftover_cards_with_new_orientations():
    # Seat 0 climbs to 16, then explores 5, 5, 5 and 4 levels and is wiped each time (gains
    # nothing); seat 1 always fails at level 1. 35 cards are then discarded in stack order.
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22, 23, 24, 25, 26]
    order += [c for c in range(36) if c not in order]
    wanted = order[:35][::-1]
    state = deal(2, order, extra=[wanted, *[3] * 35], fallback=None)
    for _ in range(3):
        play_round(state, {0: plan(right_calls(state, 5)), 1: plan(right_calls(state, 1, wrong_at=1))})
    play_round(state, {0: plan(right_calls(state, 1)), 1: plan(right_calls(state, 1, wrong_at=1))})
    assert state.observation(0)["positions"] == [16, 0]
    for depth in (5, 5, 5):
        play_round(state, {0: plan(right_calls(state, depth, wrong_at=depth)),
                           1: plan(right_calls(state, 1, wrong_at=1))})
    assert state.observation(0)["stack_size"] == 5      # 5 left: no refill yet
    assert len(state.observation(0)["discard"]) == 31
    log = play_round(state, {0: plan(right_calls(state, 4, wrong_at=4)),
                             1: plan(right_calls(state, 1, wrong_at=1))})
    assert log["wiped"] == [True, False] and log["positions"] == [16, 0]
    # 4.1 of the next round: 1 card left, so the 35 discards go beneath it, newly oriented.
    observation = state.observation(0)
    assert observation["stack_size"] == 36 and observation["discard"] == []
    assert observation["carried_levels"] == 1
    assert state.full_view()["stack"] == [[order[35], 0]] + [[card, 3] for card in wanted]
    assert state.rng.remaining == 0


# --- D8, D9: turtles and contests ---------------------------------------------------------------

@pytest.mark.parametrize("card,turtles", [(11, 1), (18, 2)])
def test_d8_the_turtle_winner_moves_one_space_per_printed_turtle(card, turtles):
    state = deal(2, [card, 0, 1, 2, 3])
    log = play_round(state, {0: plan(["air"]), 1: plan(["shark"])})
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 0, "to": turtles}
    assert log["positions"] == [turtles + 1, 0]
    assert log["advance"] == [turtles + 1, 0]


def test_d9_a_diver_with_a_wrong_call_does_not_contest_the_helper_even_with_the_highest_bid():
    state = deal(2, [11, 0, 1, 2, 3])
    log = play_round(state, {0: plan(["air", "air"]), 1: plan(["shark"])}, {0: [1, 1, 1, 1, 2]})
    assert log["plans"][0]["bids"] == [10, 5] and log["plans"][1]["bids"] == [15]
    assert log["levels"][0]["wrong"] == [1]
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 0, "to": 1}
    assert log["positions"] == [3, 0]


def test_d9_a_tie_for_the_highest_bid_gives_the_helper_to_nobody():
    state = deal(3, [11, 0, 1, 2, 3])
    log = play_round(state, {0: plan(["air"]), 1: plan(["air"]), 2: plan(["air", "air"])})
    assert [p["bids"][0] for p in log["plans"]] == [15, 15, 10]
    assert log["levels"][0]["helper"] is None
    assert log["positions"] == [1, 1, 2]


# --- D10, D11: mantas and immediate helper moves ---------------------------------------------

def test_d10_the_manta_winner_joins_the_nearest_pawn_strictly_ahead_and_the_leader_gets_nothing():
    state = deal(3, [0, 1, 2, 3, 4, 22, 23])
    play_round(state, {0: plan(["air"]), 1: plan(["air"] * 3), 2: plan(["air"] * 5)})
    assert state.observation(0)["positions"] == [1, 3, 5]
    log = play_round(state, {0: plan(["air"]), 1: plan(["shark"]), 2: plan(["shark"])})
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 0, "to": 3}
    assert log["positions"] == [4, 3, 5]
    log = play_round(state, {0: plan(["shark"]), 1: plan(["shark"]), 2: plan(["air"])})
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 2, "to": 5}
    assert log["positions"] == [4, 3, 6]


def test_d10_a_pawn_on_the_manta_winner_s_own_space_is_not_ahead_of_it():
    state = deal(3, [0, 1, 2, 3, 4, 22, 23])
    play_round(state, {0: plan(["air"]), 1: plan(["air"]), 2: plan(["air"] * 5)})
    assert state.observation(0)["positions"] == [1, 1, 5]
    # L1 manta: seat 0 alone calls right (seats 1 and 2 call shark); seat 1 shares its space 1,
    # so the nearest pawn strictly ahead is seat 2 on 5.
    log = play_round(state, {0: plan(["air"]), 1: plan(["shark"]), 2: plan(["shark"])})
    assert log["levels"][0]["wrong"] == [1, 2]
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 0, "to": 5}
    assert log["positions"] == [6, 1, 5]


def test_d10_a_pawn_wiped_at_this_level_is_still_a_manta_target_until_the_rest():
    state = deal(3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 33, 15])
    # Seat 2 dives alone (seats 0 and 1 call L1 wrong, seat 0 right once): positions 1, 0, 19.
    play_round(state, {0: plan(["air"]), 1: plan(["shark"]), 2: plan(right_calls(state, 5))})
    play_round(state, {0: plan(["shark"]), 1: plan(["shark"]), 2: plan(right_calls(state, 5))})
    play_round(state, {0: plan(["air"]), 1: plan(["air"]), 2: plan(right_calls(state, 5))})
    assert state.observation(0)["positions"] == [1, 0, 19]
    # L1 is card 33 (shark + manta): seat 2 calls air in deep water and is wiped, but its pawn
    # stays on 19 until the rest, so seat 0 (bid 15 against seat 1's 1) joins it there.
    log = play_round(state, {0: plan(["shark"]), 1: plan(["shark", "air"]), 2: plan(["air"])},
                     {1: [1, 2, 2, 2, 2]})
    assert log["levels"][0]["wrong"] == [2]
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 0, "to": 19}
    assert log["wiped"] == [False, False, True] and log["positions"] == [20, 3, 19]


def test_d11_a_helper_move_counts_at_once_for_a_manta_on_a_deeper_level():
    state = deal(3, [0, 1, 2, 3, 4, 18, 23, 5])
    play_round(state, {0: plan(["air"]), 1: plan(["air"] * 3), 2: plan(["air"] * 5)})
    assert state.observation(0)["positions"] == [1, 3, 5]
    # L1 turtle pair: seat 1 (bid 15) wins, 3 -> 5. L2 manta: seat 0 (bid 14) beats seat 2 (5)
    # and joins the nearest pawn ahead of 1, which is now on 5, not 3.
    log = play_round(state, {0: plan(["air", "air"]), 1: plan(["air"]), 2: plan(["air", "air"])},
                     {0: [1, 2, 2, 2, 2], 2: [1, 1, 1, 1, 2]})
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 1, "to": 5}
    assert log["levels"][1]["helper"] == {"kind": "manta", "winner": 0, "to": 5}
    assert log["positions"] == [7, 6, 7]


# --- D12: deep water and wipes ---------------------------------------------------------------------

def test_d12_a_wrong_call_below_deep_water_keeps_the_round_s_moves():
    state = deal(2, [18, 6, 0, 1, 2])
    log = play_round(state, {0: plan(["air", "air"]), 1: plan(["shark"])})
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 0, "to": 2}
    assert log["levels"][1]["wrong"] == [0]
    assert log["wiped"] == [False, False] and log["positions"] == [3, 0]


def test_d12_a_wrong_call_in_deep_water_reached_during_the_round_wipes_every_move_of_the_round():
    state = deal(2, TIE_PREFIX + [18, 6, 0, 1])
    tie_rounds(state, 3)
    assert state.observation(0)["positions"] == [15, 15]
    log = play_round(state, {0: plan(["air", "air"]), 1: plan(["shark"])})
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 0, "to": 17}
    assert log["levels"][1]["wrong"] == [0]
    assert log["succeeded"] == [1, 0]
    assert log["wiped"] == [True, False]
    assert log["advance"] == [0, 0] and log["positions"] == [15, 15]


def test_d12_a_manta_does_nothing_for_a_winner_in_deep_water():
    state = deal(2, TIE_PREFIX + [0, 1, 22, 6])
    tie_rounds(state, 3)
    play_round(state, {0: plan(["air"]), 1: plan(["air", "air"])})
    assert state.observation(0)["positions"] == [16, 17]
    log = play_round(state, {0: plan(["air"]), 1: plan(["shark"])})
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 0, "to": 16}
    assert log["wiped"] == [False, True]
    assert log["positions"] == [17, 17]


# --- D13, D15: end of the game and ranking ---------------------------------------------------------

ENDGAME_PREFIX = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]


def test_d13_the_round_that_reaches_23_ends_the_game_and_equal_positions_rank_by_levels_succeeded():
    state = deal(2, ENDGAME_PREFIX + [11, 0, 1, 23])
    tie_rounds(state, 4)
    assert state.observation(0)["positions"] == [20, 20] and not state.is_terminal()
    # Seat 1 takes the turtle with bid 10 over 1 and dives 2; seat 0 dives 3: both reach 23.
    log = play_round(state, {0: plan(["air"] * 3), 1: plan(["air"] * 2)},
                     {0: [1, 2, 3, 3, 3], 1: [1, 1, 1, 1, 2]})
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 1, "to": 21}
    assert log["positions"] == [23, 23] and log["succeeded"] == [3, 2]
    assert state.is_terminal() and state.to_act() == []
    assert state.legal_actions(0) == [] and state.legal_actions(1) == []
    result = state.result()
    assert result["scores"] == [23, 23] and result["ranks"] == [1, 2]
    observation = state.observation(1)
    assert observation["phase"] == "over" and observation["last_round"]["round"] == 5
    with pytest.raises(IllegalAction):
        state.apply({0: plan(["air"]), 1: plan(["air"])})


def test_d13_overflow_past_23_counts_and_equal_on_both_keys_share_the_rank():
    state = deal(3, ENDGAME_PREFIX + [0, 1, 11, 23, 24])
    tie_rounds(state, 4)
    log = play_round(state, {0: plan(["air"] * 5), 1: plan(["air"] * 3), 2: plan(["air"] * 3)},
                     {1: [1, 2, 3, 3, 3], 2: [1, 2, 3, 3, 3]})
    assert log["positions"] == [25, 23, 23]
    result = state.result()
    assert result["scores"] == [25, 23, 23] and result["ranks"] == [1, 2, 2]


def test_d15_the_game_ends_after_round_30_when_nobody_reached_the_stone():
    state = deal(2, [], fallback=7)
    for round_number in range(1, 31):
        assert state.observation(0)["round"] == round_number
        play_round(state, {s: plan(right_calls(state, 1, wrong_at=1)) for s in (0, 1)})
    assert state.is_terminal()
    assert state.result()["scores"] == [0, 0] and state.result()["ranks"] == [1, 1]
    assert state.observation(0)["round"] == 30


# --- D16: the solo village chief -------------------------------------------------------------------

def test_d16_the_chief_rolls_then_shuffles_never_fails_and_contests_helpers_and_manta_targets():
    # Chief die 4, tokens t = [5, 1, 2, 3, 4]: bids L1 5, L2 1, L3 2, L4 3 + 4 = 7.
    state = deal(1, [18, 6, 13, 22, 0], extra=[4, [5, 1, 2, 3, 4]], fallback=None)
    log = play_round(state, {0: plan(["air"])})
    assert state.rng.calls[-2:] == ["choice(<6 items>)", "shuffle(<5 items>)"]
    assert log["chief"] == {"depth": 4, "bids": [5, 1, 2, 7]}
    assert [level["card"] for level in log["levels"]] == [18, 6, 13, 22]
    assert all(level["wrong"] == [] for level in log["levels"])
    assert [level["helper"] for level in log["levels"]] == [
        {"kind": "turtle", "winner": 0, "to": 2},         # player 15 beats the chief's 5
        None,
        {"kind": "turtle", "winner": "chief", "to": 1},
        {"kind": "manta", "winner": "chief", "to": 2},   # joins the player on 2
    ]
    assert log["positions"] == [3] and log["chief_position"] == 6
    observation = state.observation(0)
    assert observation["solo"] is True and observation["chief_position"] == 6
    assert observation["carried_levels"] == 1


def test_d16_the_chief_s_pawn_is_a_manta_target_for_the_player():
    # Round 1: open water; the chief (die 5) dives 5 levels, the player 1. Round 2: the chief
    # (die 5, tokens 1..5 in order) bids 1 on the L1 manta, the player 15: the player wins and
    # joins the chief's pawn, the only pawn ahead of it.
    state = deal(1, [0, 1, 2, 3, 4, 22, 5, 6, 7, 8],
                 extra=[5, [1, 2, 3, 4, 5], 5, [1, 2, 3, 4, 5]], fallback=None)
    log = play_round(state, {0: plan(["air"])})
    assert log["positions"] == [1] and log["chief_position"] == 5
    log = play_round(state, {0: plan(["air"])})
    assert log["chief"] == {"depth": 5, "bids": [1, 2, 3, 4, 5]}
    assert log["levels"][0]["helper"] == {"kind": "manta", "winner": 0, "to": 5}
    assert log["positions"] == [6] and log["chief_position"] == 10


def test_d16_the_chief_die_shows_1_2_3_3_4_5():
    depths = []
    for seed in range(240):
        state = GAME.new_state(num_players=1, seed=seed)
        play_round(state, {0: plan(["air"])})
        depths.append(state.observation(0)["last_round"]["chief"]["depth"])
    counts = {depth: depths.count(depth) for depth in set(depths)}
    assert set(counts) == {1, 2, 3, 4, 5}                    # never a 6
    assert max(counts, key=counts.get) == 3                  # the face printed twice


def test_d16_a_helper_tie_with_the_chief_gives_it_to_nobody():
    state = deal(1, [11, 0, 1, 2, 3], extra=[1, [1, 2, 3, 4, 5]], fallback=None)
    log = play_round(state, {0: plan(["air"])})
    assert log["chief"] == {"depth": 1, "bids": [15]}
    assert log["levels"][0]["helper"] is None
    assert log["positions"] == [1] and log["chief_position"] == 1


@pytest.mark.parametrize("wrong_at,score,rank", [(None, 0, 1), (5, -9, 2)])
def test_d16_the_player_wins_a_final_tie_with_the_chief_and_loses_when_behind(wrong_at, score, rank):
    chief = []
    for _ in range(5):
        chief += [5, [1, 2, 3, 4, 5]]
    # Level 5 of every round is open water, so the chief never wins a helper alone there.
    order = [card for r in range(5) for card in (11 + 4 * r, 12 + 4 * r, 13 + 4 * r, 14 + 4 * r, r)]
    state = deal(1, order, extra=chief, fallback=3)
    # The player bids like the chief (1..5 on levels 1..5): every helper it contests is a tie.
    # With a wrong call at level 5 it gains 4 a round, and is wiped in round 5 (on 16).
    for _ in range(5):
        play_round(state, {0: plan(right_calls(state, 5, wrong_at))}, {0: [1, 2, 3, 4, 5]})
    assert state.is_terminal()
    result = state.result()
    assert result["scores"] == [score] and result["ranks"] == [rank]
    assert result["rounds"] == 5 and result["chief_position"] == 25


# --- D17: companions ------------------------------------------------------------------------------

COMPANION_ORDER = ["octopus", "dolphin", "pilot_fish", "sailfish", "seahorse"]


def dealt(first, second, levels):
    """Two seats with the companions ``first`` and ``second``."""
    rest = [c for c in COMPANION_ORDER if c not in (first, second)]
    return deal(2, levels, companions=[first, second, *rest])


def test_d17_octopus_forgives_the_first_wrong_call_only_and_is_then_used():
    state = dealt("octopus", "dolphin", [6, 7, 0, 1, 2])
    log = play_round(state, {0: plan(["air", "air", "air"], True), 1: plan(["shark"], False)})
    assert log["plans"][0]["companion"] == "octopus" and log["plans"][1]["companion"] is None
    assert log["levels"][0]["forgiven"] == [0] and log["levels"][0]["wrong"] == []
    assert log["levels"][1]["wrong"] == [0]
    assert log["succeeded"] == [1, 1] and log["positions"] == [1, 1]
    observation = state.observation(0)
    assert observation["companions"] == [{"id": "octopus", "used": True}, {"id": "dolphin", "used": False}]
    assert len(state.legal_actions(0)) == 62 and len(state.legal_actions(1)) == 124
    with pytest.raises(IllegalAction):
        state.apply({0: plan(["air"], True), 1: plan(["air"], False)})


def test_d17_octopus_in_deep_water_saves_the_round():
    state = deal(2, TIE_PREFIX + [6, 0, 1], companions=COMPANION_ORDER)
    tie_rounds(state, 3, companions=True)
    log = play_round(state, {0: plan(["air", "air", "air"], True), 1: plan(["air"], False)})
    assert log["levels"][0]["forgiven"] == [0] and log["levels"][0]["wrong"] == [1]
    assert log["wiped"] == [False, False] and log["positions"] == [18, 15]


def test_d17_octopus_forgives_one_wrong_call_so_a_second_one_in_deep_water_wipes():
    state = deal(2, TIE_PREFIX + [0, 6, 34, 1, 11, 12], companions=COMPANION_ORDER)
    tie_rounds(state, 3, companions=True)
    play_round(state, {0: plan(["air"], False), 1: plan(["air"], False)})
    assert state.observation(0)["positions"] == [16, 16]
    # L1 and L2 are shark cards: seat 0 (octopus) calls air on both.
    log = play_round(state, {0: plan(["air", "air"], True), 1: plan(["shark"], False)})
    assert log["levels"][0]["forgiven"] == [0] and log["levels"][1]["wrong"] == [0]
    assert log["wiped"] == [True, False] and log["positions"] == [16, 17]


def test_d17_dolphin_adds_3_to_each_bid_in_the_helper_contests():
    for use, winner in ((False, 1), (True, 0)):
        state = dealt("dolphin", "octopus", [11, 0, 1, 2, 3])
        log = play_round(state, {0: plan(["air", "air"], use), 1: plan(["air", "air"], False)},
                         {0: [2, 2, 1, 1, 1], 1: [1, 2, 1, 1, 1]})
        assert [p["bids"][0] for p in log["plans"]] == [12, 13]
        assert log["levels"][0]["helper"]["winner"] == winner


@pytest.mark.parametrize("other_tokens,winner", [
    ([2, 2, 1, 2, 2], 0),      # L1 bids 1 + 3 against 3: the dolphin wins
    ([2, 2, 2, 1, 2], None),   # 1 + 3 against 4: a tie, so nobody gets the turtle
])
def test_d17_dolphin_adds_exactly_3(other_tokens, winner):
    state = dealt("dolphin", "octopus", [11, 0, 1, 2, 3])
    log = play_round(state, {0: plan(["air", "air"], True), 1: plan(["air", "air"], False)},
                     {0: [1, 2, 2, 2, 2], 1: other_tokens})
    expected = None if winner is None else {"kind": "turtle", "winner": winner, "to": 1}
    assert log["levels"][0]["helper"] == expected


def test_d17_pilot_fish_wins_a_tie_for_the_highest_bid():
    for use, helper in ((False, None), (True, {"kind": "turtle", "winner": 1, "to": 1})):
        state = dealt("sailfish", "pilot_fish", [11, 0, 1, 2, 3])
        log = play_round(state, {0: plan(["air"], False), 1: plan(["air"], use)})
        assert log["levels"][0]["helper"] == helper


def test_d17_pilot_fish_does_not_win_a_tie_it_is_not_part_of():
    # Seats 0 and 1 tie at 15 on the L1 turtle; seat 2 (pilot fish) bids 1 there.
    state = deal(3, [11, 0, 1, 2, 3], companions=["octopus", "dolphin", "pilot_fish", "sailfish", "seahorse"])
    log = play_round(state, {0: plan(["air"], False), 1: plan(["air"], False), 2: plan(["air", "air"], True)},
                     {2: [1, 2, 2, 2, 2]})
    assert [p["bids"][0] for p in log["plans"]] == [15, 15, 1] and log["plans"][2]["companion"] == "pilot_fish"
    assert log["levels"][0]["helper"] is None


def test_d17_sailfish_adds_2_at_rest_only_without_a_wrong_call():
    state = dealt("sailfish", "seahorse", [0, 1, 6, 2, 3])
    log = play_round(state, {0: plan(["air", "air"], True), 1: plan(["air"], False)})
    assert log["advance"] == [4, 1]
    state = dealt("sailfish", "seahorse", [0, 1, 6, 2, 3])
    log = play_round(state, {0: plan(["air", "air", "air"], True), 1: plan(["air"], False)})
    assert log["levels"][2]["wrong"] == [0] and log["advance"] == [2, 1]
    assert state.observation(1)["companions"][0] == {"id": "sailfish", "used": True}


def test_d17_seahorse_keeps_the_round_s_moves_after_a_wrong_call_in_deep_water():
    state = deal(2, TIE_PREFIX + [18, 6, 0, 1], companions=["seahorse", *COMPANION_ORDER[:4]])
    tie_rounds(state, 3, companions=True)
    log = play_round(state, {0: plan(["air", "air"], True), 1: plan(["shark"], False)})
    assert log["plans"][0]["companion"] == "seahorse"
    assert log["levels"][0]["helper"] == {"kind": "turtle", "winner": 0, "to": 17}
    assert log["levels"][1]["wrong"] == [0]
    assert log["wiped"] == [False, False] and log["positions"] == [18, 15]


def test_d17_a_companion_declared_without_effect_is_used_up_all_the_same():
    state = dealt("dolphin", "octopus", [0, 1, 2, 3, 4])
    play_round(state, {0: plan(["air"], True), 1: plan(["air"], False)})
    assert state.observation(1)["companions"][0]["used"] is True
    assert all(a["companion"] is False for a in state.legal_actions(0))
