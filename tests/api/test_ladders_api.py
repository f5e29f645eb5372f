"""/api/ladders/ and /api/ladders/{slug}/leaderboard/."""

from __future__ import annotations

from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from tests.api.helpers import client_as


def test_the_ladder_list_shows_each_ladder_with_its_entries(arena):
    body = client_as(None).get("/api/ladders/").json()
    assert body["count"] == 1
    ladder = body["results"][0]
    assert (ladder["slug"], ladder["seat_count"], ladder["entries"], ladder["is_solo"]) == ("duel", 2, 2, False)


def test_the_ladder_list_filters_by_game_and_activity(arena, two_player_game):
    ladder_create(slug="closed", name="Closed", game=two_player_game, seat_count=2, active=False)
    client = client_as(None)
    assert client.get(f"/api/ladders/?game={two_player_game}").json()["count"] == 2
    assert [x["slug"] for x in client.get("/api/ladders/?active=false").json()["results"]] == ["closed"]
    assert client.get("/api/ladders/?game=chess").json()["count"] == 0
    assert client.get("/api/ladders/?active=maybe").status_code == 400


def test_the_leaderboard_puts_the_winner_first(arena):
    body = client_as(None).get("/api/ladders/duel/leaderboard/").json()
    rows = body["results"]
    assert [r["bot_name"] for r in rows] == ["bravo", "alpha"]
    assert [r["position"] for r in rows] == [1, 2]
    assert rows[0]["elo"] > rows[1]["elo"]
    assert (rows[0]["wins"], rows[1]["losses"], rows[1]["faults"]) == (1, 1, 1)
    assert rows[0]["owner"] == "bob" and rows[0]["version"] == 1


def test_a_solo_leaderboard_ranks_by_mean_score(owner, ready_bot):
    from engines import list_games

    solo = next((g.id for g in list_games() if g.min_players == 1), None)
    if solo is None:
        import pytest
        pytest.skip("no solo game registered")
    ladder = ladder_create(slug="solo", name="Solo", game=solo, seat_count=1)
    low, high = ready_bot("low", game=solo), ready_bot("high", game=solo)
    Rating.objects.filter(ladder=ladder, bot=low).update(games=2, score_sum=10.0, score_sq_sum=52.0)
    Rating.objects.filter(ladder=ladder, bot=high).update(games=2, score_sum=30.0, score_sq_sum=452.0)
    rows = client_as(None).get("/api/ladders/solo/leaderboard/").json()["results"]
    assert [r["bot_name"] for r in rows] == ["high", "low"]
    assert rows[0]["mean_score"] == 15.0
    assert rows[0]["interval95"] > 0


def test_an_unknown_ladder_is_404(db):
    assert client_as(None).get("/api/ladders/nowhere/").status_code == 404
    assert client_as(None).get("/api/ladders/nowhere/leaderboard/").status_code == 404
