"""Dive built-in bots: the heuristic reasons from the ocean view, answers legal actions only and
beats random play (the win rates themselves are measured by bench/bot_strength.py)."""

from __future__ import annotations

import random

import pytest

from engines.dive.bots import heuristic_bot, level_beliefs
from tests.engines.dive_support import GAME, deal, plan


def play(bots, num_players, seed, options=None):
    state = GAME.new_state(num_players=num_players, seed=seed, options=options)
    rngs = [random.Random(seed * 10 + seat) for seat in range(num_players)]
    while not state.is_terminal():
        actions = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            action = bots[seat](state.observation(seat), legal, rngs[seat])
            assert action in legal
            actions[seat] = action
        state.apply(actions)
    return state.result()


@pytest.mark.parametrize("num_players,companions", [(1, False), (1, True), (3, True), (5, False)])
def test_the_heuristic_only_answers_legal_actions(num_players, companions):
    for seed in range(3):
        play([heuristic_bot] * num_players, num_players, seed, {"companions": companions})


def test_the_heuristic_wins_most_two_player_games_against_random():
    wins = sum(
        play([heuristic_bot, GAME.bots["random"]] if seed % 2 == 0 else [GAME.bots["random"], heuristic_bot],
             2, seed)["ranks"][seed % 2] == 1
        for seed in range(20))
    assert wins >= 16


def test_a_visible_level_1_shark_is_certain_and_so_is_its_absence():
    # Level 1 creatures are always visible (5.1): card 7's shark shows with tint 1.
    with_shark = level_beliefs(deal(2, [7, 0, 1, 2, 3]).observation(0))
    assert with_shark[0]["shark"] == pytest.approx(1.0)
    # Card 22 (manta, haze 1) alone at tint 1: level 1 holds no shark.
    without = level_beliefs(deal(2, [22, 0, 1, 2, 3]).observation(0))
    assert without[0]["shark"] == pytest.approx(0.0)
    assert without[0]["manta"] == pytest.approx(1.0)
    assert all(0.0 <= b["shark"] <= 1.0 for b in with_shark + without)


def test_the_heuristic_calls_what_the_view_shows_and_bids_most_where_the_turtles_are():
    # L1 = card 19 (turtles in 1 and 3, haze 1); below it only open water.
    state = deal(2, [19, 0, 2, 4, 1])
    observation = state.observation(0)
    action = heuristic_bot(observation, state.legal_actions(0), random.Random(0))
    assert action["type"] == "plan" and action["calls"][0] == "air"
    state.apply({0: action, 1: plan(["air"])})
    placement = heuristic_bot(state.observation(0), state.legal_actions(0), random.Random(0))
    bids = [0] * len(action["calls"])
    for value, level in enumerate(placement["token_levels"], start=1):
        bids[level - 1] += value
    assert bids[0] == max(bids)


def test_the_heuristic_plays_the_same_whatever_the_hidden_cards_are():
    # Same view (open water of equal haze swapped, different cards below), different truths.
    a = deal(2, [0, 1, 6, 2, 3] + [c for c in range(36) if c not in (0, 1, 6, 2, 3)])
    b = deal(2, [4, 5, 6, 0, 1] + [c for c in range(35, -1, -1) if c not in (4, 5, 6, 0, 1)])
    assert a.observation(0) == b.observation(0)
    assert a.full_view()["stack"] != b.full_view()["stack"]
    for state in (a, b):
        state.apply({0: heuristic_bot(state.observation(0), state.legal_actions(0), random.Random(1)),
                     1: plan(["air"])})
    assert a.observation(0)["my_plan"] == b.observation(0)["my_plan"]
    assert (heuristic_bot(a.observation(0), a.legal_actions(0), random.Random(2))
            == heuristic_bot(b.observation(0), b.legal_actions(0), random.Random(3)))
