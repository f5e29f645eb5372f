"""Leaderboards: explained columns, a provisional mark, a trend, ranks and pages from the database."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.ladders.batch import batch_refit
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import ladder_leaderboard, leaderboard_trends
from arena.ladders.services import ladder_create
from arena.matches.services import match_create, match_record_luck
from arena.runs.recording import match_record_outcome
from tests.factories import summary_outcome as _outcome


def _play(trio, ranks: list[int], faults=None):
    order = [trio["alpha"], trio["bravo"], trio["charlie"]]
    match = match_create(game=trio["ladder"].game, versions=[b.active_version for b in order], ladder=trio["ladder"])
    outcome = _outcome(trio["ladder"].game, 3, faults=faults)
    outcome["ranks"] = ranks
    match_record_outcome(match_id=match.pk, outcome=outcome)
    return match


def _row(page: str, name: str) -> str:
    return re.search(rf'<tr data-bot="\d+">\s*<td class="num">\d+</td>\s*<td><a [^>]*>{name}</a>.*?</tr>', page, re.S).group(0)


def test_the_leaderboard_counts_first_places_and_mean_rank(trio):
    _play(trio, [1, 2, 3])
    _play(trio, [2, 1, 3])
    _play(trio, [1, 3, 2])
    alpha = Rating.objects.get(bot=trio["alpha"])
    assert (alpha.games, alpha.first_places, alpha.rank_sum) == (3, 2, 4)
    assert alpha.win_rate == pytest.approx(2 / 3) and alpha.mean_rank == pytest.approx(4 / 3)
    page = Client().get("/ladders/trio/").content.decode()
    row = _row(page, "alpha")
    assert "67%" in row and "1.33" in row  # win rate, mean rank


def test_every_column_is_explained_on_the_page(trio):
    page = Client().get("/ladders/trio/").content.decode()
    for header in ("Win rate", "Mean rank", "Mean score", "Faults", "Trend", "Last played", "Elo"):
        assert header in page
    legend = page[page.index("What the columns mean"):]
    for term in ("Win rate", "Mean rank", "provisional", "Trend", "Faults", "3-seat game"):
        assert term in legend
    assert "W/D/L" not in page


def test_a_bot_with_fewer_than_twenty_games_is_marked_provisional(trio, settings):
    _play(trio, [1, 2, 3])
    page = Client().get("/ladders/trio/").content.decode()
    assert 'class="badge provisional"' in _row(page, "alpha")
    settings.LEADERBOARD_PROVISIONAL_GAMES = 1
    page = Client().get("/ladders/trio/").content.decode()
    assert "provisional" not in _row(page, "alpha")


def test_the_trend_is_the_rating_change_over_the_last_twenty_games(trio, settings):
    settings.LEADERBOARD_TREND_GAMES = 2
    for ranks in ([1, 2, 3], [3, 2, 1], [1, 2, 3]):
        _play(trio, ranks)
    ladder = trio["ladder"]
    alpha = trio["alpha"]
    changes = list(alpha.rating_changes.order_by("created_at", "id"))
    trends = leaderboard_trends(ladder=ladder, bot_ids=[alpha.pk])
    assert trends[alpha.pk] == pytest.approx(changes[-1].after - changes[-2].before)
    everything = leaderboard_trends(ladder=ladder, bot_ids=[alpha.pk], games=20)  # fewer games: all of them
    assert everything[alpha.pk] == pytest.approx(changes[-1].after - changes[0].before)


def test_positions_come_from_the_database_and_ties_share_one(trio):
    Rating.objects.filter(bot=trio["alpha"]).update(elo=1300)
    Rating.objects.filter(bot=trio["bravo"]).update(elo=1300)
    Rating.objects.filter(bot=trio["charlie"]).update(elo=1100)
    rows = list(ladder_leaderboard(ladder=trio["ladder"]))
    assert [(r.bot.name, r.position) for r in rows] == [("alpha", 1), ("bravo", 1), ("charlie", 3)]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        list(ladder_leaderboard(ladder=trio["ladder"])[0:3])
    assert any("RANK() OVER" in q["sql"].upper() for q in queries.captured_queries)


def test_the_leaderboard_is_paginated_in_the_database(trio, django_assert_max_num_queries):
    from tests.web.population import add_bots

    add_bots(ladder=trio["ladder"], count=120, prefix="many", owners=10)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        rows = ladder_leaderboard(ladder=trio["ladder"])[50:100]
    assert len(rows) == 50 and any("LIMIT 50 OFFSET 50" in q["sql"] for q in queries.captured_queries)
    page2 = Client().get("/ladders/trio/?page=2").content.decode()
    positions = [int(p) for p in re.findall(r'<tr data-bot="\d+">\s*<td class="num">(\d+)</td>', page2)]
    assert len(positions) == 50 and positions == sorted(positions) and positions[0] > 1
    assert "page 2 of 3 (123 bots)" in page2


def test_a_solo_ladder_ranks_by_mean_score_with_its_interval_and_no_win_rate(db, ready_bot):
    from engines import list_games

    game = next(g.id for g in list_games() if g.min_players == 1)
    ladder = ladder_create(slug="solo", name="Solo", game=game, seat_count=1)
    bot = ready_bot("lonely", game=game)
    for score in (10.0, 20.0):
        match = match_create(game=game, versions=[bot.active_version], ladder=ladder)
        outcome = _outcome(game, 1)
        outcome["scores"] = [score]
        match_record_outcome(match_id=match.pk, outcome=outcome)
    page = Client().get("/ladders/solo/").content.decode()
    assert "Mean score" in page and "15.00" in page and "±" in page
    assert "Win rate" not in page.split("What the columns mean")[0]


def test_a_paused_version_is_marked_on_the_leaderboard(trio):
    from django.utils import timezone

    trio["alpha"].active_version.__class__.objects.filter(pk=trio["alpha"].active_version_id).update(
        paused_at=timezone.now(), pause_reason="5 faulted ladder matches in a row (crash ×5)")
    assert 'class="badge paused"' in _row(Client().get("/ladders/trio/").content.decode(), "alpha")


def test_the_api_leaderboard_keeps_its_fields_and_pages(trio):
    _play(trio, [1, 2, 3])
    data = Client().get("/api/ladders/trio/leaderboard/").json()
    first = data["results"][0]
    assert first["bot_name"] == "alpha" and first["position"] == 1
    assert {"elo", "games", "wins", "faults", "owner", "version", "win_rate", "mean_rank", "provisional"} <= set(first)
    assert first["win_rate"] == 1.0 and first["mean_rank"] == 1.0 and first["provisional"] is True


def test_the_leaderboard_says_what_the_official_rating_reads_and_how_many_games_are_raw(trio):
    first = _play(trio, [1, 2, 3])
    _play(trio, [2, 1, 3])
    assert batch_refit(ladder=trio["ladder"]) is True
    page = Client().get("/ladders/trio/").content.decode()
    assert "on score margins of each seat's play, its score less its" in page
    assert '<span data-role="raw-games">2 of 2 games read on raw scores until their luck is measured</span>' in page
    assert match_record_luck(match_id=first.pk, luck=[1.5, -0.5, -1.0])
    assert batch_refit(ladder=Ladder.objects.get(pk=trio["ladder"].pk)) is True  # luck arrived: refitted
    page = Client().get("/ladders/trio/").content.decode()
    assert '<span data-role="raw-games">1 of 2 games read on raw scores' in page
    # A ladder read on the score's log less the luck (Dive! Diver! Die!'s official reading) says so.
    Ladder.objects.filter(pk=trio["ladder"].pk).update(batch_transform="log_score")
    page = Client().get("/ladders/trio/").content.decode()
    assert "on score margins of each seat's score on a log scale less its" in page
    assert "luck</a> at the log's slope" in page and "each seat's play" not in page
