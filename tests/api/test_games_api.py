"""/api/games/: the registered engines."""

from __future__ import annotations

from engines import list_games
from tests.api.helpers import client_as


def test_it_lists_every_registered_game(db):
    body = client_as(None).get("/api/games/").json()
    assert [g["id"] for g in body["results"]] == [g.id for g in list_games()]
    assert body["count"] == len(list_games())


def test_a_game_shows_its_players_bots_and_summary(db, two_player_game):
    body = client_as(None).get(f"/api/games/{two_player_game}/").json()
    game = next(g for g in list_games() if g.id == two_player_game)
    assert (body["title"], body["min_players"], body["max_players"]) == (
        game.title, game.min_players, game.max_players)
    assert "random" in body["builtin_bots"] and "heuristic" in body["builtin_bots"]
    assert body["summary"]


def test_an_unknown_game_is_404(db):
    assert client_as(None).get("/api/games/chess/").status_code == 404
