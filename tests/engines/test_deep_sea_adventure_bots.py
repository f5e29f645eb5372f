"""Deep Sea Adventure built-in bots: legal play, sensible choices and strength against random."""

from __future__ import annotations

import random

import pytest

from engines.bots import random_bot
from tests.engines.deep_sea_adventure_support import GAME, chip, position

heuristic = GAME.bots["heuristic"]


def test_the_game_offers_a_random_and_a_heuristic_bot():
    assert GAME.bots["random"] is random_bot
    assert callable(heuristic)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_the_heuristic_always_answers_one_of_the_legal_actions(num_players):
    for seed in range(8):
        state = GAME.new_state(num_players, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            action = heuristic(state.observation(seat), legal, rng)
            assert action in legal
            state.apply({seat: action})


def decide(state, seat):
    return heuristic(state.observation(seat), state.legal_actions(seat), random.Random(0))


def test_the_heuristic_keeps_diving_while_it_carries_nothing():
    state = position(2, path=[None] * 5 + [[chip(1, 1)]] * 10, air=3, current=0, decision="direction",
                     divers=[{"pos": 5}, {"pos": 6, "carried": [[chip(1, 0)]]}])
    assert decide(state, 0) == {"type": "continue"}


def test_the_heuristic_turns_back_when_the_air_is_short_for_the_way_home():
    path = [[chip(1, 1)]] * 20
    state = position(3, path=path, air=8, current=0, decision="direction",
                     divers=[{"pos": 15, "carried": [[chip(3, 8)]]}, {"pos": 16, "carried": [[chip(1, 0)]] * 2}, {}])
    assert decide(state, 0) == {"type": "turn_back"}
    plenty = position(3, path=path, air=25, current=0, decision="direction",
                      divers=[{"pos": 3, "carried": [[chip(1, 0)]]}, {"pos": 4}, {}])
    assert decide(plenty, 0) == {"type": "continue"}


def test_the_heuristic_leaves_treasure_it_could_not_bring_home_and_takes_it_when_it_can():
    path = [[chip(2, 5)]] * 12
    far = position(2, path=path, air=4, current=0, decision="search",
                   divers=[{"pos": 12, "up": True, "carried": [[chip(1, 0)]]}, {"pos": 2, "carried": [[chip(1, 1)]]}])
    assert decide(far, 0) == {"type": "pass"}
    near = position(2, path=path, air=20, current=0, decision="search",
                    divers=[{"pos": 3, "up": True}, {"pos": 2}])
    assert decide(near, 0) == {"type": "take"}


def test_the_heuristic_drops_its_lowest_level_item_to_lighten_a_risky_trip_home():
    carried = [[chip(3, 9)], [chip(1, 2)], [chip(4, 14)]]
    state = position(2, path=[None] * 10, air=9, current=0, decision="search",
                     divers=[{"pos": 8, "up": True, "carried": carried}, {"returned": True}], return_order=[1])
    assert decide(state, 0) == {"type": "drop", "item": 1}


def test_the_heuristic_clearly_beats_random_players():
    wins = 0
    games = 60
    for seed in range(games):
        me = seed % 3
        bots = [random_bot] * 3
        bots[me] = heuristic
        state = GAME.new_state(3, seed=seed)
        rngs = [random.Random(seed * 10 + seat) for seat in range(3)]
        while not state.is_terminal():
            seat = state.to_act()[0]
            state.apply({seat: bots[seat](state.observation(seat), state.legal_actions(seat), rngs[seat])})
        wins += state.result()["ranks"][me] == 1
    assert wins >= 2 * games / 3  # twice the fair share of a 3-player game
