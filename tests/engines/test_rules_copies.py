"""The rules shown on the site (docs/rules) are the design's rules files, unchanged."""

from pathlib import Path

import pytest

from engines import list_games

REPO = Path(__file__).resolve().parents[2]
SHARED_RULES = REPO.parent / "shared" / "rules"


@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_every_game_points_at_its_rules_copy_in_the_repository(game_id):
    from engines import get_game

    rules_file = REPO / get_game(game_id).info.rules_file
    assert rules_file == REPO / "docs" / "rules" / f"{game_id}.md"
    assert rules_file.is_file()


@pytest.mark.skipif(not SHARED_RULES.is_dir(), reason="the design repository is not beside this checkout")
@pytest.mark.parametrize("game_id", [game.id for game in list_games()])
def test_the_rules_copy_matches_the_design_rules_file(game_id):
    copy = (REPO / "docs" / "rules" / f"{game_id}.md").read_bytes()
    assert copy == (SHARED_RULES / f"{game_id}.md").read_bytes(), (
        f"docs/rules/{game_id}.md differs from the design's rules/{game_id}.md: copy it again")
