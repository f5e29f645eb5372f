"""The base class validates every action: no engine overrides ``GameState.apply``, and each
engine's ``_choice`` (its fast way to find a legal action) decides exactly what
``action in legal_actions(seat)`` decides, over random games of every engine and seat count."""

from __future__ import annotations

import copy
import random

import pytest

from engines import GameState, IllegalAction, get_game, list_games
from tests.engines.conformance import player_counts

_NOTHING = object()
CASES = [(game.id, n) for game in list_games() for n in player_counts(game)]


@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_no_engine_overrides_the_base_apply(game_id):
    state = get_game(game_id).new_state(num_players=get_game(game_id).min_players, seed=1)
    assert type(state).apply is GameState.apply


def _variants(action) -> list:
    """Actions near ``action``: equal ones written differently, and unequal ones."""
    out: list = [None, 0, "stay", [], {}, [action]]
    if not isinstance(action, dict):
        return out
    out.append({**action, "extra": 1})
    for key, value in action.items():
        out.append({k: v for k, v in action.items() if k != key})
        if isinstance(value, bool):
            out.append({**action, key: not value})
            out.append({**action, key: int(value)})
        elif isinstance(value, int):
            out += [{**action, key: value + 1}, {**action, key: float(value)}, {**action, key: str(value)}]
        elif isinstance(value, str):
            out.append({**action, key: value + "x"})
        elif isinstance(value, list):
            out += [{**action, key: value[:-1]}, {**action, key: [*value, 0]}, {**action, key: tuple(value)}]
    return out


@pytest.mark.parametrize("game_id, num_players", CASES)
def test_each_engines_choice_accepts_exactly_the_legal_actions(game_id, num_players):
    game = get_game(game_id)
    chooser = random.Random(f"{game_id}{num_players}")
    for seed in range(3):
        state = game.new_state(num_players=num_players, seed=seed)
        seen: list = []        # actions legal somewhere in this game, tried everywhere after
        checked = 0
        while state.to_act():
            actions = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                candidates = list(legal) + chooser.sample(seen, min(len(seen), 6))
                for action in legal[:4]:
                    candidates += _variants(action)
                for candidate in candidates:
                    is_legal = candidate in legal
                    assert (state._choice(seat, candidate) is not None) == is_legal, (seat, candidate, legal)
                    checked += 1
                seen += [copy.deepcopy(action) for action in legal[:3]]
                del seen[:-40]
                actions[seat] = legal[chooser.randrange(len(legal))]
            state.apply(actions)
        assert checked > 0


@pytest.mark.parametrize("game_id, num_players", CASES)
def test_the_base_apply_refuses_an_illegal_choice_and_changes_nothing(game_id, num_players):
    game = get_game(game_id)
    chooser = random.Random(num_players)
    state = game.new_state(num_players=num_players, seed=5)
    refused = 0
    while state.to_act() and refused < 30:
        to_act = state.to_act()
        seat = to_act[0]
        legal = state.legal_actions(seat)
        wrong = next((v for v in _variants(legal[0]) if v not in legal), _NOTHING)
        if wrong is not _NOTHING:
            before = state.full_view()
            with pytest.raises(IllegalAction):
                state.apply({s: (wrong if s == seat else state.legal_actions(s)[0]) for s in to_act})
            assert state.full_view() == before
            refused += 1
        state.apply({s: chooser.choice(state.legal_actions(s)) for s in to_act})
    assert refused > 0
