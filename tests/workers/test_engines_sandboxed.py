"""Every registered engine plays full sandboxed matches with its built-in and starter bots."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines import list_games
from tests.workers.conftest import TEST_LIMITS, leftovers, write_bot
from workers.replay import compress, decompress, verify
from workers.runner import SeatSpec, run_match

STARTER_KITS = Path(__file__).resolve().parents[2] / "starter_kits"
GAMES = [game.id for game in list_games()]

# A built-in bot of the game, run *inside* the sandbox through the SDK (engines is mounted).
SANDBOXED_BUILTIN = """
import arena_bot
from engines import get_game
arena_bot.run(get_game({game!r}).bots[{bot!r}])
"""


def _players(game) -> int:
    return max(2, game.min_players)


def test_every_game_has_a_starter_kit():
    assert GAMES
    for game_id in GAMES:
        assert (STARTER_KITS / game_id / "main.py").is_file(), game_id


@pytest.mark.parametrize("game_id", GAMES)
def test_a_game_plays_to_the_end_with_starter_and_built_in_bots_in_the_sandbox(game_id, tmp_path):
    game = next(g for g in list_games() if g.id == game_id)
    seats = [SeatSpec(str(STARTER_KITS / game_id / "main.py"), name="starter"),
             SeatSpec(write_bot(tmp_path, "heuristic", SANDBOXED_BUILTIN.format(game=game_id, bot="heuristic"))),
             SeatSpec(write_bot(tmp_path, "random", SANDBOXED_BUILTIN.format(game=game_id, bot="random"))),
             SeatSpec("builtin:heuristic"), SeatSpec("builtin:random")]
    seats = seats[:max(_players(game), min(len(seats), game.max_players))]
    for seed in (1, 2):
        outcome = run_match(game_id, seats, seed=seed, limits=TEST_LIMITS)
        assert outcome.faults == [], [(f.kind, f.message) for f in outcome.faults]
        assert all(row["decisions"] > 0 for row in outcome.timing[:3])   # the sandboxed seats played
        assert sorted(outcome.ranks)[0] == 1 and len(outcome.scores) == len(seats)
        assert verify(decompress(compress(outcome.replay))) == []
        assert leftovers(outcome) == {}


@pytest.mark.parametrize("game_id", GAMES)
def test_the_starter_bot_beats_random_in_the_sandbox(game_id):
    starter = SeatSpec(str(STARTER_KITS / game_id / "main.py"))
    wins = losses = 0
    for seed in range(16):
        seats = [starter, SeatSpec("builtin:random")] if seed % 2 == 0 else [SeatSpec("builtin:random"), starter]
        me = 0 if seed % 2 == 0 else 1
        outcome = run_match(game_id, seats, seed=seed, limits=TEST_LIMITS)
        assert outcome.faults == []
        wins += outcome.ranks[me] < outcome.ranks[1 - me]
        losses += outcome.ranks[me] > outcome.ranks[1 - me]
    assert wins > losses and wins >= 8, (wins, losses)   # wins at least half, more than it loses


def _starter_choose(game_id: str):
    import importlib.util
    import sys

    sdk = str(Path(__file__).resolve().parents[2] / "workers" / "sdk")
    if sdk not in sys.path:
        sys.path.append(sdk)
    spec = importlib.util.spec_from_file_location(f"starter_{game_id}", STARTER_KITS / game_id / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.choose


@pytest.mark.parametrize("game_id", GAMES)
def test_a_starter_kit_plays_otherwise_than_its_games_built_in_heuristic(game_id):
    # A ladder cannot tell two bots apart that take the same decisions (Dive's kit once called the heuristic).
    import random

    from engines import get_game

    game, kit = get_game(game_id), _starter_choose(game_id)
    heuristic, rng, differ = game.bots["heuristic"], random.Random(0), 0
    for seed in range(6):
        state = game.new_state(num_players=_players(game), seed=seed)
        while not state.is_terminal():
            actions = {}
            for seat in state.to_act():
                observation, legal = state.observation(seat), state.legal_actions(seat)
                actions[seat] = heuristic(observation, legal, rng)
                differ += kit(observation, legal, random.Random(seed)) != actions[seat]
            state.apply(actions)
    assert differ > 0
