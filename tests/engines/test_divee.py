"""Divee! engine: the worked examples and decisions D1-D14 of /work/shared/rules/divee.md.

Chance is fixed with ScriptedRandom: every die is one scripted face value, in draw order
(the initial roll draws 5 dice, a re-roll draws one value per die not kept).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from engines import IllegalAction, InvalidOptions, ScriptedRandom, get_game
from engines.divee.state import solo_title

GAME = get_game("divee")
CARDS = ["divee", "four_dice", "straight", "full_house", "big_dive", "small_dive"]


def new(num_players, dice, special_tiles=False, fallback=None):
    """A new game whose dice come, in draw order, from the flat list ``dice``."""
    return GAME.new_state(num_players=num_players, options={"special_tiles": special_tiles},
                          rng=ScriptedRandom(dice, fallback=fallback))


def act(state, action):
    """Plays ``action`` for the seat to act."""
    (seat,) = state.to_act()
    state.apply({seat: action})


def claim(card):
    return {"type": "claim", "card": card}


def reroll(*keep):
    return {"type": "reroll", "keep": list(keep)}


def one_more_roll(*keep):
    return {"type": "one_more_roll", "keep": list(keep)}


def flip(value):
    return {"type": "flip", "value": value}


def kinds(legal):
    """How many legal actions there are of each type."""
    counts = {}
    for action in legal:
        counts[action["type"]] = counts.get(action["type"], 0) + 1
    return counts


def seat_view(state, seat):
    return state.spectator_view()["seats"][seat]


# --- section 8: the worked example -----------------------------------------------------------

def test_the_worked_example_of_the_rules_file_plays_out_exactly():
    state = new(2, [
        6, 2, 5, 3, 4,        # round 1, seat 0: initial roll, drawn unsorted
        1, 4, 1, 6, 1,        # round 1, seat 1: initial roll
        1, 6,                 # seat 1 re-rolls two dice
        5, 6, 2, 1, 2,        # round 2, seat 0: initial roll
        3, 4, 6,              # re-roll keeping [2, 2]
        1, 5, 6,              # re-roll keeping [2, 2]
        3, 3, 4,              # One More Roll keeping [2, 2]
        4, 4, 4, 4, 4,        # round 2, seat 1: initial roll
        1, 2, 3, 4, 6,        # round 3, seat 0: initial roll
    ], special_tiles=True)

    # Round 1, seat 0.
    assert state.to_act() == [0]
    obs = state.observation(0)
    assert obs["dice"] == [2, 3, 4, 5, 6] and obs["round"] == 1 and obs["first_roll"]
    legal = state.legal_actions(0)
    assert kinds(legal) == {"claim": 6, "reroll": 31, "flip": 5} and len(legal) == 42
    assert obs["claim_preview"] == {"divee": 0, "four_dice": 0, "straight": 9, "full_house": 0,
                                    "big_dive": 4, "small_dive": 2}
    act(state, claim("straight"))
    assert seat_view(state, 0)["cards"]["straight"] == "scored"
    assert seat_view(state, 0)["card_points"] == {"straight": 9}
    assert seat_view(state, 0)["score"] == 9

    # Round 1, seat 1.
    assert state.to_act() == [1]
    assert state.observation(1)["dice"] == [1, 1, 1, 4, 6]
    legal = state.legal_actions(1)
    assert kinds(legal) == {"claim": 6, "reroll": 15, "flip": 3} and len(legal) == 24
    assert [a["value"] for a in legal if a["type"] == "flip"] == [1, 4, 6]
    act(state, reroll(1, 1, 1))
    assert state.spectator_view()["dice"] == [1, 1, 1, 1, 6]
    assert state.spectator_view()["rerolls_used"] == 1
    assert kinds(state.legal_actions(1)) == {"claim": 6, "reroll": 9, "flip": 2}
    act(state, flip(6))
    view = state.spectator_view()
    assert view["dice"] == [1, 1, 1, 1, 1]
    assert view["flip_used_this_turn"] and not view["first_roll"]
    assert seat_view(state, 1)["flip_over"] is False
    assert view["instant_winner"] is None and state.to_act() == [1]  # no first-roll Divee
    act(state, claim("divee"))
    assert seat_view(state, 1)["card_points"] == {"divee": 10}
    assert seat_view(state, 1)["score"] == 10

    # Round 2, seat 0.
    assert state.to_act() == [0] and state.spectator_view()["round"] == 2
    assert state.spectator_view()["dice"] == [1, 2, 2, 5, 6]
    act(state, reroll(2, 2))
    assert state.spectator_view()["dice"] == [2, 2, 3, 4, 6]
    act(state, reroll(2, 2))
    assert state.spectator_view()["dice"] == [1, 2, 2, 5, 6]
    assert state.spectator_view()["rerolls_used"] == 2
    act(state, one_more_roll(2, 2))
    view = state.spectator_view()
    assert view["dice"] == [2, 2, 3, 3, 4] and view["omr_used_this_turn"]
    assert seat_view(state, 0)["one_more_roll"] is False
    legal = state.legal_actions(0)
    assert legal == [claim(c) for c in CARDS if c != "straight"] + [flip(2), flip(3), flip(4)]
    act(state, claim("divee"))
    assert seat_view(state, 0)["cards"]["divee"] == "discarded"
    assert seat_view(state, 0)["score"] == 9

    # Round 2, seat 1.
    assert state.to_act() == [1]
    assert state.spectator_view()["dice"] == [4, 4, 4, 4, 4]
    assert state.spectator_view()["instant_winner"] is None
    assert state.observation(1)["claim_preview"] == {
        "four_dice": 10, "straight": 0, "full_house": 7, "big_dive": 4, "small_dive": 0}
    act(state, claim("four_dice"))

    # State after round 2.
    zero, one = seat_view(state, 0), seat_view(state, 1)
    assert (zero["score"], one["score"]) == (9, 20)
    assert zero["card_points"] == {"straight": 9}
    assert zero["cards"]["divee"] == "discarded"
    assert (zero["one_more_roll"], zero["flip_over"]) == (False, True)
    assert one["card_points"] == {"divee": 10, "four_dice": 10}
    assert (one["one_more_roll"], one["flip_over"]) == (True, False)
    assert state.to_act() == [0] and state.spectator_view()["round"] == 3


def test_the_legal_actions_follow_the_canonical_order_of_step_3():
    state = new(1, [2, 3, 4, 5, 6, 1], special_tiles=True)
    legal = state.legal_actions(0)
    assert legal[:6] == [claim(c) for c in CARDS]
    keeps = [a["keep"] for a in legal if a["type"] == "reroll"]
    assert keeps == sorted(keeps, key=lambda keep: (len(keep), keep))
    assert keeps[:7] == [[], [2], [3], [4], [5], [6], [2, 3]] and keeps[-1] == [3, 4, 5, 6]
    assert [a["type"] for a in legal[6:]] == ["reroll"] * 31 + ["flip"] * 5
    assert [a["value"] for a in legal[-5:]] == [2, 3, 4, 5, 6]


def test_the_instant_win_example_ends_the_game_with_ranks_2_1_2():
    state = new(3, [
        2, 3, 4, 5, 6,  5, 5, 5, 5, 1,  3, 3, 3, 3, 6,    # round 1: 9, 10, 10
        2, 2, 3, 3, 3,  1, 1, 2, 3, 4,  1, 2, 3, 4, 5,    # round 2: 7, 2, 9
        1, 4, 5, 6, 6,  1, 2, 3, 4, 6,  1, 4, 4, 5, 6,    # round 3: 1, 0 (discard), 1
        1, 2, 3, 4, 6,                                    # round 4, seat 0: discards its divee
        6, 6, 6, 6, 6,                                    # round 4, seat 1: first-roll Divee
    ])
    for card in ["straight", "four_dice", "four_dice",
                 "full_house", "big_dive", "straight",
                 "small_dive", "full_house", "small_dive",
                 "divee"]:
        act(state, claim(card))
    assert state.to_act() == [] and state.is_terminal()
    assert state.result() == {"scores": [17, 12, 20], "ranks": [2, 1, 2], "instant_winner": 1,
                              "title": None, "tier": None}
    view = state.spectator_view()
    assert view["round"] == 4 and view["current_seat"] is None and view["claim_preview"] == {}
    assert view["dice"] == [6, 6, 6, 6, 6]
    # The winner's cards and the cards of seat 2 stay in hand; the winning roll scores nothing.
    assert seat_view(state, 1)["cards"]["divee"] == "hand"
    assert list(seat_view(state, 2)["cards"].values()).count("hand") == 3
    assert view["log"][-1] == {"type": "instant_win", "round": 4, "seat": 1, "dice": [6, 6, 6, 6, 6]}


def solo_38_points(extra=()):
    """The rulebook's example cards, as a solo game (the rules file's solo scoring example)."""
    state = new(1, [
        1, 2, 3, 3, 6,  3, 3, 3,      # turn 1: keep [3, 3], roll three 3s: Divee (not a first roll)
        4, 4, 2, 4, 4,                # turn 2: 4 Dice on the first roll: 8 + 2
        1, 1, 2, 3, 4,  5,            # turn 3: keep [1, 2, 3, 4], roll a 5: Straight, 7
        1, 2, 5, 5, 6,  2, 2, 5,      # turn 4: keep [5, 5], roll 2, 2, 5: Full House, 5
        1, 2, 3, 5, 6,                # turn 5: Big Dive, two dice of 4-6: 2 + 1
        1, 2, 3, 5, 6,                # turn 6: Small Dive, three dice of 1-3: 1 + 2
        *extra,
    ])
    act(state, reroll(3, 3))
    act(state, claim("divee"))
    act(state, claim("four_dice"))
    act(state, reroll(1, 2, 3, 4))
    act(state, claim("straight"))
    act(state, reroll(5, 5))
    act(state, claim("full_house"))
    act(state, claim("big_dive"))
    return state


def test_the_solo_scoring_example_totals_38_and_earns_legendary_diver():
    state = solo_38_points()
    # One card left and two re-rolls: still a choice, so the seat claims it itself.
    assert state.to_act() == [0]
    act(state, claim("small_dive"))
    assert seat_view(state, 0)["card_points"] == {
        "divee": 10, "four_dice": 10, "straight": 7, "full_house": 5, "big_dive": 3, "small_dive": 3}
    assert state.result() == {"scores": [38], "ranks": [1], "instant_winner": None,
                              "title": "Legendary Diver", "tier": 2}


# --- solo mode and its titles (section 6.3) ----------------------------------------------------

def test_a_first_roll_divee_in_solo_mode_earns_beloved_of_the_sea():
    state = new(1, [2, 2, 2, 2, 2])
    assert state.is_terminal()  # new_state itself returns a finished game
    assert state.result() == {"scores": [0], "ranks": [1], "instant_winner": 0,
                              "title": "Beloved of the Sea", "tier": 1}


def test_a_solo_game_that_discards_everything_is_no_swimming_allowed():
    rolls = [1, 2, 3, 4, 6] * 6
    state = new(1, rolls)
    for card in ["divee", "four_dice", "straight", "full_house"]:
        act(state, claim(card))  # none completed: discarded
    act(state, claim("big_dive"))  # 2 + 1 (two dice of 4-6)
    act(state, claim("small_dive"))  # 1 + 2 (three dice of 1-3)
    assert state.result() == {"scores": [6], "ranks": [1], "instant_winner": None,
                              "title": "No Swimming Allowed", "tier": 8}


@pytest.mark.parametrize("score,tier,title", [
    (43, 2, "Legendary Diver"), (35, 2, "Legendary Diver"), (34, 3, "Genius Diver"),
    (30, 3, "Genius Diver"), (29, 4, "Diving Master"), (25, 4, "Diving Master"),
    (24, 5, "Advanced Diver"), (20, 5, "Advanced Diver"), (19, 6, "Beginner Diver"),
    (15, 6, "Beginner Diver"), (14, 7, "Dangerous Diver"), (10, 7, "Dangerous Diver"),
    (9, 8, "No Swimming Allowed"), (0, 8, "No Swimming Allowed"),
])
def test_solo_score_titles_follow_the_table_at_every_boundary(score, tier, title):
    assert solo_title(score) == (tier, title)


def test_every_random_solo_game_gets_the_title_of_its_score_band():
    bands = [(35, 2), (30, 3), (25, 4), (20, 5), (15, 6), (10, 7), (0, 8)]
    for seed in range(40):
        state = GAME.new_state(num_players=1, seed=seed)
        chooser = random.Random(seed)
        while not state.is_terminal():
            act(state, chooser.choice(state.legal_actions(0)))
        result = state.result()
        if result["instant_winner"] is None:
            expected = next(tier for lowest, tier in bands if result["scores"][0] >= lowest)
            assert result["tier"] == expected, result
        else:
            assert result["tier"] == 1
        assert result["ranks"] == [1]


# --- one scenario per decision -------------------------------------------------------------

def test_d1_the_game_takes_1_to_6_players():
    assert (GAME.min_players, GAME.max_players) == (1, 6)
    for n in range(1, 7):
        assert len(GAME.new_state(num_players=n, seed=1).spectator_view()["seats"]) == n
    with pytest.raises(ValueError):
        GAME.new_state(num_players=7, seed=1)
    with pytest.raises(ValueError):
        GAME.new_state(num_players=0, seed=1)


def test_d2_seat_0_starts_and_turns_go_up_by_seat_then_the_round_advances():
    state = new(3, [1, 2, 3, 4, 6] * 4)
    order = []
    for _ in range(3):
        order.append((state.to_act(), state.spectator_view()["round"]))
        act(state, claim("divee"))
    order.append((state.to_act(), state.spectator_view()["round"]))
    assert order == [([0], 1), ([1], 1), ([2], 1), ([0], 2)]


def test_six_seats_play_six_rounds_and_the_last_claim_of_seat_5_ends_the_game_in_round_6():
    # Seats 0-4 claim Big Dive then Small Dive (3 each with [1, 2, 3, 4, 6]) and discard the
    # rest; seat 5 opens with a first-roll Straight (9), discards, then takes both dives.
    plain = [1, 2, 3, 4, 6]
    orders = [["big_dive", "small_dive", "divee", "four_dice", "straight", "full_house"]] * 5
    orders.append(["straight", "divee", "four_dice", "full_house", "big_dive", "small_dive"])
    dice = []
    for round_ in range(6):
        for seat in range(6):
            dice += [2, 3, 4, 5, 6] if (seat, round_) == (5, 0) else plain
    state = new(6, dice)
    for round_ in range(1, 7):
        for seat in range(6):
            view = state.spectator_view()
            assert (state.to_act(), view["round"], view["current_seat"]) == ([seat], round_, seat)
            act(state, claim(orders[seat][round_ - 1]))
    view = state.spectator_view()
    assert state.is_terminal() and state.to_act() == []
    assert all(state.legal_actions(seat) == [] for seat in range(6))
    assert view["round"] == 6 and view["current_seat"] is None
    assert view["claim_preview"] == {} and view["dice"] == plain
    assert all(set(seat["cards"].values()) == {"scored", "discarded"} for seat in view["seats"])
    result = state.result()
    assert result["scores"] == [6, 6, 6, 6, 6, 15]
    assert result["ranks"] == [2, 2, 2, 2, 2, 1]
    assert result["instant_winner"] is None and result["title"] is None and result["tier"] is None


def test_d3_keeps_are_distinct_sorted_sub_multisets_and_keeping_all_five_is_illegal():
    state = new(1, [3, 3, 5, 3, 5, 2, 2])
    assert state.spectator_view()["dice"] == [3, 3, 3, 5, 5]
    keeps = [a["keep"] for a in state.legal_actions(0) if a["type"] == "reroll"]
    assert len(keeps) == 4 * 3 - 1 and len({tuple(k) for k in keeps}) == len(keeps)
    assert all(keep == sorted(keep) for keep in keeps)
    before = state.full_view()
    for bad in (reroll(3, 3, 3, 5, 5), reroll(5, 3), reroll(6), reroll(3, 3, 3, 3)):
        with pytest.raises(IllegalAction):
            act(state, bad)
        assert state.full_view() == before
    act(state, reroll(3, 3, 3))
    assert state.spectator_view()["dice"] == [2, 2, 3, 3, 3]


def test_d4_a_claim_is_the_only_way_to_stop_and_it_ends_the_turn_at_once():
    state = new(2, [2, 3, 4, 5, 6, 1, 1, 1, 4, 6])
    assert {a["type"] for a in state.legal_actions(0)} == {"claim", "reroll"}
    act(state, claim("big_dive"))
    assert state.to_act() == [1]
    assert seat_view(state, 0)["card_points"] == {"big_dive": 4}


def test_d5_claiming_a_card_the_dice_do_not_complete_discards_it_for_good():
    state = new(1, [1, 2, 3, 4, 6, 2, 2, 2, 2, 6])
    assert state.observation(0)["claim_preview"]["full_house"] == 0
    act(state, claim("full_house"))
    assert seat_view(state, 0)["cards"]["full_house"] == "discarded"
    assert seat_view(state, 0)["score"] == 0 and seat_view(state, 0)["card_points"] == {}
    assert claim("full_house") not in state.legal_actions(0)
    assert "full_house" not in state.observation(0)["claim_preview"]
    assert state.spectator_view()["log"][1]["outcome"] == "discarded"


def test_d6_five_of_a_kind_also_completes_four_dice_and_full_house_and_straights_are_exact():
    state = new(1, [1, 2, 3, 4, 6,  3, 3, 3, 3, 3,  2, 3, 4, 5, 6])
    assert state.observation(0)["claim_preview"]["straight"] == 0  # 1-2-3-4-6 is no straight
    act(state, claim("divee"))  # used up first, so five 3s are no instant win
    preview = state.observation(0)["claim_preview"]
    assert preview == {"four_dice": 10, "straight": 0, "full_house": 7, "big_dive": 0, "small_dive": 3}
    act(state, claim("big_dive"))
    assert state.observation(0)["claim_preview"]["straight"] == 9


@pytest.mark.parametrize("dice,big,small", [
    ([1, 1, 1, 2, 4], 2, 3), ([1, 1, 2, 4, 5], 3, 3), ([1, 2, 4, 5, 6], 4, 2),
    ([1, 4, 5, 6, 6], 4, 1), ([4, 4, 5, 5, 6], 4, 0), ([1, 1, 2, 2, 3], 0, 3),
])
def test_d7_big_and_small_dive_bonuses_count_the_dice_of_4_to_6_and_1_to_3(dice, big, small):
    state = new(1, dice)
    preview = state.observation(0)["claim_preview"]
    assert (preview["big_dive"], preview["small_dive"]) == (big, small)


def test_d8_the_first_roll_bonus_is_lost_after_a_reroll_but_the_dive_bonus_is_not():
    state = new(1, [2, 3, 4, 5, 1, 6], fallback=1)
    assert state.observation(0)["claim_preview"]["straight"] == 9
    act(state, reroll(2, 3, 4, 5))
    preview = state.observation(0)["claim_preview"]
    assert state.spectator_view()["dice"] == [2, 3, 4, 5, 6] and not state.observation(0)["first_roll"]
    assert preview["straight"] == 7 and preview["big_dive"] == 4
    act(state, claim("straight"))
    assert seat_view(state, 0)["card_points"] == {"straight": 7}


def test_d8_the_first_roll_bonus_is_lost_after_a_flip():
    state = new(1, [2, 2, 2, 5, 2,  3, 3, 4, 5, 6], special_tiles=True)
    assert state.spectator_view()["dice"] == [2, 2, 2, 2, 5]
    assert state.observation(0)["claim_preview"]["four_dice"] == 10
    act(state, flip(2))  # one 2 becomes a 5: [2, 2, 2, 5, 5], a full house, but no first roll
    assert state.spectator_view()["dice"] == [2, 2, 2, 5, 5]
    assert not state.observation(0)["first_roll"]
    assert state.observation(0)["claim_preview"]["full_house"] == 5
    act(state, claim("full_house"))
    assert seat_view(state, 0)["card_points"] == {"full_house": 5}


def test_d9_a_first_roll_divee_wins_at_once_and_every_other_seat_shares_rank_2():
    state = new(4, [1, 2, 3, 4, 6,  5, 5, 5, 5, 5])
    act(state, claim("straight"))  # seat 0 discards its straight: score 0
    assert state.is_terminal()
    result = state.result()
    assert result["ranks"] == [2, 1, 2, 2] and result["instant_winner"] == 1
    assert result["scores"] == [0, 0, 0, 0]


def test_d9_a_five_of_a_kind_first_roll_is_no_win_once_the_divee_card_is_used():
    state = new(1, [1, 2, 3, 4, 6,  5, 5, 5, 5, 5])
    act(state, claim("divee"))
    assert state.to_act() == [0] and state.spectator_view()["instant_winner"] is None
    assert state.observation(0)["claim_preview"]["four_dice"] == 10


def test_d9_new_state_returns_a_finished_game_when_seat_0_rolls_a_divee_first():
    state = new(3, [4, 4, 4, 4, 4])
    assert state.is_terminal() and state.legal_actions(0) == []
    assert state.result()["ranks"] == [1, 2, 2]


def test_d10_one_more_roll_is_offered_only_after_both_rerolls_and_only_once_a_game():
    state = new(1, [1, 2, 3, 4, 6,  1,  1,  1,  1, 2, 3, 4, 6,  5,  5], special_tiles=True)
    assert "one_more_roll" not in kinds(state.legal_actions(0))
    act(state, reroll(1, 2, 3, 4))
    assert "one_more_roll" not in kinds(state.legal_actions(0))
    act(state, reroll(1, 2, 3, 4))
    assert state.spectator_view()["dice"] == [1, 1, 2, 3, 4]
    assert kinds(state.legal_actions(0)) == {"claim": 6, "one_more_roll": 3 * 2 * 2 * 2 - 1, "flip": 4}
    with pytest.raises(IllegalAction):
        act(state, reroll(1, 2, 3, 4))  # no third regular re-roll
    act(state, one_more_roll(1, 2, 3, 4))
    view = state.spectator_view()
    assert view["dice"] == [1, 1, 2, 3, 4] and view["rerolls_used"] == 2 and view["omr_used_this_turn"]
    assert "one_more_roll" not in kinds(state.legal_actions(0))
    act(state, claim("small_dive"))
    act(state, reroll(1, 2, 3, 4))
    act(state, reroll(1, 2, 3, 4))
    assert "one_more_roll" not in kinds(state.legal_actions(0))  # the tile is used up
    assert seat_view(state, 0)["one_more_roll"] is False


def test_d11_flip_over_is_offered_after_the_last_roll_keeps_rerolls_and_both_tiles_fit_one_turn():
    state = new(1, [1, 1, 2, 3, 6,  6, 6, 6,  6, 6, 6,  2, 2, 2], special_tiles=True)
    act(state, reroll(1, 2))
    act(state, reroll(1, 2))
    act(state, one_more_roll(1, 2))
    assert state.spectator_view()["dice"] == [1, 2, 2, 2, 2]
    assert kinds(state.legal_actions(0)) == {"claim": 6, "flip": 2}
    act(state, flip(1))  # 1 -> 6
    view = state.spectator_view()
    assert view["dice"] == [2, 2, 2, 2, 6] and view["rerolls_used"] == 2
    assert view["omr_used_this_turn"] and view["flip_used_this_turn"]
    assert seat_view(state, 0)["flip_over"] is False
    assert state.legal_actions(0) == [claim(c) for c in CARDS]


def test_d11_a_flip_does_not_use_up_a_reroll():
    state = new(1, [1, 2, 3, 4, 6, 5], special_tiles=True)
    act(state, flip(6))  # 6 -> 1: [1, 1, 2, 3, 4]
    assert state.spectator_view()["dice"] == [1, 1, 2, 3, 4]
    assert kinds(state.legal_actions(0)) == {"claim": 6, "reroll": 3 * 2 * 2 * 2 - 1}
    act(state, reroll(1, 2, 3, 4))
    assert state.spectator_view()["rerolls_used"] == 1


def play_identical_seats(num_players):
    """Every seat rolls the same dice and claims the same cards, so every score is equal."""
    turns = [([2, 3, 4, 5, 6], "straight"), ([1, 2, 3, 4, 6], "divee"),
             ([3, 3, 3, 3, 1], "four_dice"), ([2, 2, 5, 5, 5], "full_house"),
             ([1, 4, 5, 6, 6], "big_dive"), ([1, 1, 2, 4, 6], "small_dive")]
    rolls = [die for dice, _ in turns for _ in range(num_players) for die in dice]
    state = new(num_players, rolls)
    for _, card in turns:
        for _ in range(num_players):
            act(state, claim(card))
    return state


def test_d12_equal_scores_share_the_rank_and_nothing_breaks_the_tie():
    state = play_identical_seats(3)
    assert state.result() == {"scores": [33, 33, 33], "ranks": [1, 1, 1], "instant_winner": None,
                              "title": None, "tier": None}


def test_d12_ranks_are_1_plus_the_number_of_seats_with_a_higher_score():
    # Seats 0 and 2 roll 2-3-4-5-6 every turn, seat 1 rolls 1-2-3-4-6; all claim the same cards.
    state = new(3, [2, 3, 4, 5, 6,  1, 2, 3, 4, 6,  2, 3, 4, 5, 6] * 6)
    for card in ["straight", "big_dive", "small_dive", "divee", "four_dice", "full_house"]:
        for _ in range(3):
            act(state, claim(card))
    result = state.result()
    assert result["scores"] == [9 + 4 + 2, 0 + 3 + 3, 9 + 4 + 2]
    assert result["ranks"] == [1, 3, 1]


def test_d13_a_single_legal_claim_is_played_by_the_engine_and_logged_as_forced():
    state = solo_38_points(extra=[5, 6, 6, 5])
    act(state, reroll(1, 2, 3))
    act(state, reroll(1, 2, 3))
    assert state.is_terminal()  # only "claim small_dive" was left: nobody was asked
    claim_entry = state.spectator_view()["log"][-1]
    assert claim_entry == {"type": "claim", "round": 6, "seat": 0, "card": "small_dive",
                           "outcome": "scored", "points": 3, "forced": True}
    assert state.result()["scores"] == [38]


def test_d13_an_unused_tile_keeps_the_last_claim_a_choice():
    state = new(1, [1, 2, 3, 4, 6] * 5 + [1, 2, 3, 5, 6,  6, 6,  6, 6], special_tiles=True)
    for card in ["divee", "four_dice", "straight", "full_house", "big_dive"]:
        act(state, claim(card))
    act(state, reroll(1, 2, 3))
    act(state, reroll(1, 2, 3))
    assert state.to_act() == [0]
    assert kinds(state.legal_actions(0)) == {"claim": 1, "one_more_roll": 3 * 2 * 2 * 2 - 1, "flip": 4}


def test_d14_titles_exist_only_in_solo_mode():
    result = play_identical_seats(2).result()
    assert result["title"] is None and result["tier"] is None
    assert play_identical_seats(1).result()["title"] == "Genius Diver"


# --- options ------------------------------------------------------------------------------

def test_without_special_tiles_there_is_no_tile_action_and_no_tile_to_show():
    state = new(2, [1, 1, 2, 3, 6,  1, 1, 1], fallback=3)
    assert GAME.default_options == {"special_tiles": False}
    assert {a["type"] for a in state.legal_actions(0)} == {"claim", "reroll"}
    act(state, reroll(1, 1))
    act(state, reroll(1, 1))
    assert state.legal_actions(0) == [claim(c) for c in CARDS]
    assert all(not s["one_more_roll"] and not s["flip_over"] for s in state.spectator_view()["seats"])


def test_special_tiles_must_be_a_boolean():
    with pytest.raises(InvalidOptions):
        GAME.new_state(num_players=2, seed=1, options={"special_tiles": 1})
    with pytest.raises(InvalidOptions):
        GAME.new_state(num_players=2, seed=1, options={"special_tiles": "yes"})


# --- hidden information (section 5) --------------------------------------------------------

def test_two_games_that_differ_only_in_future_dice_look_the_same_to_every_seat():
    past = [2, 3, 4, 5, 6,  1, 1, 1, 4, 6]
    a = new(2, past + [1, 6], special_tiles=True)
    b = new(2, past + [5, 5], special_tiles=True)
    for seat in (0, 1):  # the very first observation already reveals nothing of the dice to come
        assert a.observation(seat) == b.observation(seat)
    act(a, claim("straight"))
    act(b, claim("straight"))
    for seat in (0, 1):
        assert a.observation(seat) == b.observation(seat)
    assert a.spectator_view() == b.spectator_view()


def test_the_first_observation_holds_no_seed_and_no_random_state():
    state = GAME.new_state(num_players=3, seed=424242, options={"special_tiles": True})
    obs = state.observation(0)
    text = json.dumps(obs)
    assert "seed" not in obs and "424242" not in text
    # events: the log since the start, as no seat has decided yet (seat 0's first roll).
    assert obs == {"me": 0, **state.spectator_view(), "events": state.spectator_view()["log"]}
    assert state.observation(2) == {**obs, "me": 2}
    assert state.full_view()["seed"] == 424242


@pytest.mark.parametrize("seat", [2, -1, "0", True, 0.0, None])
def test_an_observation_for_a_seat_that_is_not_in_the_game_is_refused(seat):
    state = GAME.new_state(num_players=2, seed=1)
    with pytest.raises(ValueError, match="no seat"):
        state.observation(seat)


def test_the_observation_shows_the_whole_public_state_in_the_documented_shape():
    state = new(2, [2, 3, 4, 5, 6], special_tiles=True)
    obs = state.observation(1)
    assert {"me", "round", "current_seat", "special_tiles", "dice", "rerolls_used", "first_roll",
            "omr_used_this_turn", "flip_used_this_turn", "seats", "claim_preview", "log"} <= set(obs)
    assert obs["me"] == 1 and obs["current_seat"] == 0
    assert obs["seats"][0] == {"cards": {c: "hand" for c in CARDS}, "card_points": {}, "score": 0,
                               "one_more_roll": True, "flip_over": True}
    assert obs["log"] == [{"type": "roll", "round": 1, "seat": 0, "dice": [2, 3, 4, 5, 6]}]


def test_the_log_records_every_roll_and_action_with_the_drawn_dice():
    state = new(1, [1, 2, 3, 4, 6,  6, 6,  5], special_tiles=True, fallback=1)
    act(state, reroll(1, 2, 3))
    act(state, flip(1))
    act(state, claim("big_dive"))
    log = state.spectator_view()["log"]
    assert log[:4] == [
        {"type": "roll", "round": 1, "seat": 0, "dice": [1, 2, 3, 4, 6]},
        {"type": "reroll", "round": 1, "seat": 0, "keep": [1, 2, 3], "rolled": [6, 6],
         "dice": [1, 2, 3, 6, 6]},
        {"type": "flip", "round": 1, "seat": 0, "value": 1, "dice": [2, 3, 6, 6, 6]},
        {"type": "claim", "round": 1, "seat": 0, "card": "big_dive", "outcome": "scored",
         "points": 4, "forced": False},
    ]
    assert log[4]["type"] == "roll" and log[4]["round"] == 2


# --- engine contract details ---------------------------------------------------------------

def test_a_legal_action_cannot_be_changed_in_place_and_copies_stay_usable():
    state = GAME.new_state(num_players=2, seed=3, options={"special_tiles": True})
    legal = state.legal_actions(0)
    with pytest.raises(TypeError):
        legal[0]["card"] = "divee"
    with pytest.raises(TypeError):
        legal[7]["keep"].append(6)
    legal.reverse()  # the returned list itself is the caller's own
    assert state.legal_actions(0)[0] == claim("divee")
    copied = copy.deepcopy(state.legal_actions(0)[6])
    assert json.loads(json.dumps(copied)) == copied
    state.apply({0: json.loads(json.dumps(copied))})


def test_apply_accepts_exactly_the_actions_in_the_legal_list():
    chooser = random.Random(8)
    candidates = [claim(c) for c in CARDS] + [flip(v) for v in range(0, 8)] + [
        reroll(), reroll(1), reroll(6, 6), reroll(1, 2, 3, 4), reroll(1, 2, 3, 4, 5),
        one_more_roll(), one_more_roll(2, 2), one_more_roll(1, 2, 3, 4),
        {"type": "claim", "card": ["divee"]}, {"type": "reroll", "keep": (1,)},
        {"type": "reroll", "keep": 3}, {"type": "flip"}, {"type": "flip", "value": [2]},
        {"type": "claim", "card": "straight", "extra": 1}, {"card": "divee"}, "claim", None, [],
    ]
    for seed in range(6):
        state = GAME.new_state(num_players=2, seed=seed, options={"special_tiles": seed % 2 == 0})
        while not state.is_terminal():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            for candidate in candidates + legal:
                twin = state.clone()
                try:
                    twin.apply({seat: candidate})
                    accepted = True
                except IllegalAction:
                    accepted = False
                    assert twin.full_view() == state.full_view()
                assert accepted == (candidate in legal), candidate
            state.apply({seat: chooser.choice(legal)})


def test_an_equal_action_with_float_values_leaves_only_integer_dice():
    state = new(1, [1, 2, 3, 4, 6,  5], special_tiles=True, fallback=2)
    act(state, {"type": "flip", "value": 6.0})
    act(state, {"type": "reroll", "keep": [1.0, 1, 2, 3]})
    dice = state.spectator_view()["dice"]
    assert dice == [1, 1, 2, 3, 5] and all(type(die) is int for die in dice)
    assert json.dumps(state.full_view()).count(".0") == 0


def test_the_same_seed_replays_the_same_dice_and_clones_carry_the_dice_to_come():
    state = GAME.new_state(num_players=2, seed=12)
    twin = state.clone()
    act(state, reroll())
    act(twin, reroll())
    assert state.full_view() == twin.full_view()


@pytest.mark.parametrize("num_players", [1, 3])
def test_events_are_the_log_since_the_seats_previous_decision(num_players):
    """``events``: the log from the seat's last decision (its own re-roll, flip or claim
    first) on, or from the start before its first one; forced claims are not decisions."""
    for seed in range(6):
        state = GAME.new_state(num_players=num_players, seed=seed, options={"special_tiles": True})
        chooser = random.Random(seed)
        decided_at = [0] * num_players
        while True:
            log = state.spectator_view()["log"]
            for seat in range(num_players):
                assert state.observation(seat)["events"] == log[decided_at[seat]:], (seed, seat)
            if state.is_terminal():
                break
            seat = state.to_act()[0]
            decided_at[seat] = len(log)
            action = chooser.choice(state.legal_actions(seat))
            state.apply({seat: action})
            first = state.observation(seat)["events"][0]
            assert first["seat"] == seat and first["type"] == action["type"]
            assert not first.get("forced")
