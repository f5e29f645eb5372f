"""Deep Dive built-in bots: legal answers from the observation alone, and a heuristic that wins."""

from __future__ import annotations

import copy
import random

import pytest

from engines import ScriptedRandom
from engines.bots import random_bot
from engines.deep_dive import GAME
from engines.deep_dive.bots import BOTS, heuristic_bot

STAY, LEAVE = {"type": "stay"}, {"type": "leave"}


def play(bots, num_players, seed):
    state = GAME.new_state(num_players=num_players, seed=seed)
    rngs = [random.Random(seed * 10 + seat) for seat in range(num_players)]
    while not state.is_terminal():
        actions = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            action = bots[seat](state.observation(seat), copy.deepcopy(legal), rngs[seat])
            assert action in legal
            actions[seat] = action
        state.apply(actions)
    return state.result()


def test_the_game_offers_random_and_heuristic_bots():
    assert BOTS["random"] is random_bot
    assert GAME.bots["heuristic"] is heuristic_bot


def decision_observation(closed_shells, supply_size):
    """A real first-decision observation, with the bot's own count and the supply size set."""
    state = GAME.new_state(num_players=2, seed=0, rng=ScriptedRandom(["blue", ["white"] * 3, "green", ["white"] * 2, "red"]))
    obs = state.observation(0)
    obs["players"][0]["closed_shells"] = closed_shells
    obs["supply_size"] = supply_size
    return obs, state.legal_actions(0)


@pytest.mark.parametrize("closed_shells", [1, 3, 5, 7])
def test_the_heuristic_keeps_diving_while_it_holds_few_shells(closed_shells):
    obs, legal = decision_observation(closed_shells, supply_size=30)
    assert heuristic_bot(obs, legal, random.Random(0)) == STAY


@pytest.mark.parametrize("closed_shells", [8, 12])
def test_the_heuristic_banks_a_big_haul(closed_shells):
    obs, legal = decision_observation(closed_shells, supply_size=30)
    assert heuristic_bot(obs, legal, random.Random(0)) == LEAVE


def test_the_heuristic_stays_when_the_supply_runs_out_before_the_next_shark():
    obs, legal = decision_observation(12, supply_size=1)
    assert heuristic_bot(obs, legal, random.Random(0)) == STAY


def test_late_in_the_game_the_heuristic_keeps_diving_when_it_is_behind():
    obs, legal = decision_observation(12, supply_size=10)
    obs["players"][1]["white_pearls"] = 20
    assert heuristic_bot(obs, legal, random.Random(0)) == STAY
    obs["players"][1]["white_pearls"] = 0
    assert heuristic_bot(obs, legal, random.Random(0)) == LEAVE


def test_the_fourth_black_pearl_in_sight_counts_as_late_too():
    obs, legal = decision_observation(9, supply_size=30)
    obs["black_pile"] = 3
    obs["players"][1]["white_pearls"] = 15
    assert heuristic_bot(obs, legal, random.Random(0)) == STAY
    obs["black_pile"] = 2
    assert heuristic_bot(obs, legal, random.Random(0)) == LEAVE


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_heuristic_wins_more_than_its_fair_share_against_random(num_players):
    games = 150
    wins = 0
    for seed in range(games):
        seat = seed % num_players
        bots = [random_bot] * num_players
        bots[seat] = heuristic_bot
        wins += play(bots, num_players, seed)["ranks"][seat] == 1
    # Fair share is 1/n; demand clearly more (the margin is far beyond seed noise).
    assert wins / games > 1.5 / num_players
