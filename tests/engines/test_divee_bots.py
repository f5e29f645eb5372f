"""Divee! built-in bots: the heuristic plays legal, sensible moves and beats random play."""

from __future__ import annotations

import json
import random

import pytest

from engines import ScriptedRandom, get_game
from engines.bots import random_bot
from engines.divee.bots import FUTURE, future_values, heuristic_bot

GAME = get_game("divee")


def decide(state):
    """The heuristic's action for the seat to act, from a JSON copy of what the seat is sent."""
    (seat,) = state.to_act()
    observation = json.loads(json.dumps(state.observation(seat)))
    legal = json.loads(json.dumps(state.legal_actions(seat)))
    return heuristic_bot(observation, legal, random.Random(0))


def test_the_game_offers_a_random_and_a_heuristic_bot():
    assert GAME.bots["random"] is random_bot
    assert GAME.bots["heuristic"] is heuristic_bot


def test_the_stored_hand_values_are_the_solved_dynamic_programme():
    assert FUTURE == pytest.approx(future_values(), abs=1e-4)
    assert FUTURE[0] == 0 and 20 < FUTURE[0b111111] < 30


@pytest.mark.parametrize("special_tiles", [False, True])
def test_the_heuristic_always_answers_a_legal_action(special_tiles):
    for seed in range(4):
        state = GAME.new_state(num_players=3, seed=seed, options={"special_tiles": special_tiles})
        while not state.is_terminal():
            action = decide(state)
            (seat,) = state.to_act()
            assert action in state.legal_actions(seat)
            state.apply({seat: action})


def test_the_heuristic_keeps_a_first_roll_straight():
    state = GAME.new_state(num_players=2, rng=ScriptedRandom([2, 3, 4, 5, 6]))
    assert decide(state) == {"type": "claim", "card": "straight"}


def test_the_heuristic_rerolls_for_its_last_card_instead_of_discarding_it():
    rolls = [1, 2, 3, 4, 6] * 5 + [4, 4, 5, 6, 6]
    state = GAME.new_state(num_players=1, rng=ScriptedRandom(rolls))
    for card in ["divee", "four_dice", "straight", "full_house", "big_dive"]:
        state.apply({0: {"type": "claim", "card": card}})
    assert state.observation(0)["claim_preview"] == {"small_dive": 0}
    action = decide(state)
    assert action["type"] == "reroll" and action["keep"] == []


def test_the_heuristic_wins_most_two_player_games_against_random_play():
    wins = 0
    for seed in range(40):
        me = seed % 2
        state = GAME.new_state(num_players=2, seed=seed)
        chooser = random.Random(seed)
        while not state.is_terminal():
            (seat,) = state.to_act()
            legal = state.legal_actions(seat)
            action = decide(state) if seat == me else random_bot(state.observation(seat), legal, chooser)
            state.apply({seat: action})
        wins += state.result()["ranks"][me] == 1
    assert wins >= 32  # bench/bot_strength.py measures about 99 % over 500 games
