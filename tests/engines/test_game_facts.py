"""Every registered game carries the facts the rest of the house reads (engines.core.GameFacts), so
that a new game edits engines/ (and adds its renderer) and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines import GameFacts, list_games

ROOT = Path(__file__).resolve().parents[2]
GAMES = [game.id for game in list_games()]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_provides_its_facts(game_id):
    game = next(game for game in list_games() if game.id == game_id)
    facts = game.facts
    assert isinstance(facts, GameFacts)
    assert facts.summary.strip() and "\n" not in facts.summary
    assert (ROOT / "static" / facts.viewer_script).is_file(), facts.viewer_script
    assert set(facts.default_limits) <= {"move_ms", "bank_ms", "init_ms"}
    assert all(isinstance(value, int) and value > 0 for value in facts.default_limits.values())
    legend = facts.legend()
    assert isinstance(legend, dict) and json.loads(json.dumps(legend)) == legend
    assert facts.k_factor > 0
    assert facts.replay_dictionary, "a sample replay of the game in the stored replays' dictionary"
    assert all(game.min_players <= players <= game.max_players for _, players in facts.replay_dictionary)


def test_the_replay_dictionary_positions_order_every_games_samples_once():
    positions = [position for game in list_games() for position, _ in game.facts.replay_dictionary]
    assert sorted(positions) == list(range(len(positions)))


def test_the_house_reads_the_facts_from_the_games():
    from workers.match.clock import default_limits
    from workers.viewer import VIEWER_SCRIPTS, game_legend

    for game in list_games():
        assert game.facts.viewer_script in VIEWER_SCRIPTS
        assert game_legend(game.id) == game.facts.legend()
        limits = default_limits(game.id)
        assert all(getattr(limits, name) == value for name, value in game.facts.default_limits.items())
