"""/api/ladders/ and /api/ladders/{slug}/leaderboard/."""

from __future__ import annotations

from arena.ladders.batch import batch_refit
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from tests.api.helpers import client_as


def test_the_ladder_list_shows_each_ladder_with_its_entries(arena):
    body = client_as(None).get("/api/ladders/").json()
    assert body["count"] == 1
    ladder = body["results"][0]
    assert (ladder["slug"], ladder["seat_count"], ladder["entries"], ladder["is_solo"]) == ("duel", 2, 2, False)


def test_a_ladder_says_how_its_official_rating_read_the_results(arena):
    assert batch_refit(ladder=arena["ladder"]) is True
    ladder = client_as(None).get("/api/ladders/duel/").json()
    assert (ladder["batch_play_games"], ladder["batch_raw_games"], ladder["batch_seat_effects"]) == (0, 1, [])
    assert ladder["batch_transform"] in ("identity", "signed_log", "log_score") and ladder["batch_fitted_at"]


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


def test_a_leaderboard_page_is_ranked_in_sql_with_positions_that_continue_across_pages(owner, two_player_game):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from arena.bots.models import Bot
    from arena.ladders.models import Ladder, Rating

    ladder = Ladder.objects.create(slug="big", name="Big", game=two_player_game, seat_count=2)
    elos = [1500, 1400, 1400, 1300, 1200, 1200, 1200, 1100]
    bots = Bot.objects.bulk_create([Bot(owner=owner, name=f"b{i}", game=two_player_game) for i in range(len(elos))])
    Rating.objects.bulk_create([Rating(ladder=ladder, bot=b, elo=e) for b, e in zip(bots, elos)])
    client = client_as(None)
    rows, counts = [], []
    for page in (1, 2, 3):
        with CaptureQueriesContext(connection) as queries:
            body = client.get(f"/api/ladders/big/leaderboard/?page_size=3&page={page}").json()
        rows += [(r["bot_name"], r["position"]) for r in body["results"]]
        counts.append(len(queries.captured_queries))
        board = [q["sql"] for q in queries.captured_queries if 'FROM "ladders_rating"' in q["sql"]]
        assert any("RANK()" in sql and "LIMIT" in sql for sql in board)  # one page ranked in SQL
        assert not any("password" in sql for sql in board)  # no owner's hash read
    assert rows == [("b0", 1), ("b1", 2), ("b2", 2), ("b3", 4), ("b4", 5), ("b5", 5), ("b6", 5), ("b7", 8)]
    assert counts[0] == counts[1] == counts[2]
