"""Dive! Diver! Die!: the built-in bots play legal moves from their observation alone."""

from __future__ import annotations

import random

import pytest

from engines.bots import random_bot
from engines.dive_diver_die.bots import BOTS, heuristic_bot
from tests.engines.dive_diver_die_support import GAME, duration, start_dive


def test_the_game_offers_a_random_and_a_heuristic_bot():
    assert BOTS["random"] is random_bot and BOTS["heuristic"] is heuristic_bot
    assert GAME.bots == BOTS


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_the_heuristic_always_answers_a_legal_action_to_the_end_of_the_game(num_players):
    for seed in range(3):
        state = GAME.new_state(num_players=num_players, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                action = heuristic_bot(state.observation(seat), legal, rng)
                assert action in legal
                actions[seat] = action
            state.apply(actions)
        assert len(state.result()["ranks"]) == num_players


def test_the_heuristic_decides_from_its_observation_only():
    """Two games that differ only in seat 1's secrets give seat 0 the same answer."""
    answers = []
    for removed, prepare in (([1, 2], (3, 4)), ([7, 8], (9, 10))):
        state = start_dive(2, removed=[[1, 2], removed], prepares=[(3, 8), prepare], depths=(1, 3),
                           oxygenator=[6], events=["toughest_diver"] * 2, rolls=[-1], fallback=1)
        seat = state.to_act()[0]
        answers.append(heuristic_bot(state.observation(seat), state.legal_actions(seat), random.Random(0)))
    assert answers[0] == answers[1]


def test_the_heuristic_keeps_its_stay_short_when_oxygen_is_scarce():
    state = start_dive(2, removed=[[9, 10], [9, 10]], prepares=[(1, 8), (1, 8)], depths=(1, 3),
                       oxygenator=[1], events=["toughest_diver"] * 2, rolls=[-1], fallback=2)
    # O 0 and a common deck of two 1s: every turn below costs oxygen nobody has.
    action = heuristic_bot(state.observation(0), state.legal_actions(0), random.Random(0))
    assert action["type"] == "choose_duration" and action["turns"] <= 3
    duration(state, 0, action["turns"])


def test_the_heuristic_wins_most_two_player_games_against_random():
    # Fair share is 50 %: the heuristic takes seat 0 and seat 1 in turn over 40 seeded games.
    wins = 0
    for seed in range(40):
        seat = seed % 2
        bots = [random_bot, random_bot]
        bots[seat] = heuristic_bot
        state = GAME.new_state(num_players=2, seed=seed)
        rngs = [random.Random(seed * 100 + s) for s in range(2)]
        while not state.is_terminal():
            state.apply({s: bots[s](state.observation(s), state.legal_actions(s), rngs[s])
                         for s in state.to_act()})
        wins += state.result()["ranks"][seat] == 1
    assert wins >= 28
