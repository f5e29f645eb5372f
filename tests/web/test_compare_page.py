"""The comparison of two bots of a ladder (page and API), the batch ranking on the leaderboard, and
rotation groups on the match pages."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.ladders.batch import batch_refit
from arena.ladders.models import Rating
from arena.matches.services import match_claim, match_create, match_group_create
from arena.runs.recording import match_record_outcome
from tests.factories import summary_outcome as _outcome


def _play(trio, order, ranks, faults=None, group=None):
    """One recorded match (or the games of a rotation group, when ``group`` gives each game's ranks)."""
    versions = [trio[name].active_version for name in order]
    outcome = _outcome(trio["ladder"].game, 3, faults=faults)
    outcome["ranks"] = ranks
    outcome["scores"] = [float(10 * (3 - r)) for r in ranks]  # scores follow the ranks, as in a real game
    match = match_create(game=trio["ladder"].game, versions=versions, ladder=trio["ladder"])
    match_claim(match_id=match.pk, worker="w")
    match_record_outcome(match_id=match.pk, outcome=outcome)
    return match


def test_the_head_to_head_record_counts_shared_games_only(trio, ready_bot):
    _play(trio, ["alpha", "bravo", "charlie"], [1, 2, 3])
    _play(trio, ["bravo", "alpha", "charlie"], [1, 2, 3])  # bravo ahead
    _play(trio, ["charlie", "alpha", "bravo"], [1, 2, 2])  # level
    a, b = trio["alpha"].pk, trio["bravo"].pk
    page = Client().get(f"/ladders/trio/compare/?a={a}&b={b}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "3 games together" in text
    ahead = re.search(r"Finished ahead</th><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td>", text)
    assert ahead.groups() == ("1", "1")
    assert re.search(r"Finished level</th><td class=\"num\" colspan=\"2\">1</td>", text)
    assert re.search(r"Mean rank</abbr></th><td class=\"num\">1.67</td><td class=\"num\">1.67</td>", text)
    # alpha's ranks 1, 2, 2 and bravo's 2, 1, 2; charlie's only game level with neither is not counted
    assert "Not both have a batch rating yet" in text


def test_the_probability_comes_from_the_stored_batch_ratings(trio):
    from competition.ratings.batch import BatchRating, probability_stronger

    for _ in range(3):
        _play(trio, ["alpha", "bravo", "charlie"], [1, 2, 3])
    assert batch_refit(ladder=trio["ladder"])
    ra, rb = (Rating.objects.get(ladder=trio["ladder"], bot=trio[n]) for n in ("alpha", "bravo"))
    expected = probability_stronger(
        BatchRating(ra.batch_rating, ra.batch_low, ra.batch_high, ra.batch_games, ra.batch_provisional),
        BatchRating(rb.batch_rating, rb.batch_low, rb.batch_high, rb.batch_games, rb.batch_provisional))
    assert expected > 0.5
    text = Client().get(f"/ladders/trio/compare/?a={ra.bot_id}&b={rb.bot_id}").content.decode()
    assert f"P(alpha stronger than bravo) = {expected:.2f}" in text
    api = Client().get(f"/api/ladders/trio/compare/?a={ra.bot_id}&b={rb.bot_id}").json()
    assert api["probability_a_stronger"] == pytest.approx(expected)
    assert api["games"] == 3 and api["a"]["head_to_head_ahead"] == 3 and api["b"]["head_to_head_ahead"] == 0
    assert api["a"]["batch_rating"] == ra.batch_rating and api["a"]["bot_name"] == "alpha"


def test_the_form_lists_the_ladders_bots_and_bad_picks_get_clear_errors(trio, ready_bot):
    page = Client().get("/ladders/trio/compare/")
    assert page.status_code == 200
    assert all(f'<option value="{trio[n].pk}"' in page.content.decode() for n in ("alpha", "bravo", "charlie"))
    a = trio["alpha"].pk
    bad = Client().get(f"/ladders/trio/compare/?a={a}&b=abc")
    assert bad.status_code == 400 and "No bot is called &#x27;abc&#x27; (for B)" in bad.content.decode()
    same = Client().get(f"/ladders/trio/compare/?a={a}&b={a}")
    assert same.status_code == 400 and "two different bots" in same.content.decode()
    from engines import list_games

    other_game = next(g.id for g in list_games() if g.id != trio["ladder"].game)
    stranger = ready_bot("stranger", game=other_game)  # not entered in this ladder
    assert Client().get(f"/ladders/trio/compare/?a={a}&b={stranger.pk}").status_code == 404
    assert Client().get(f"/ladders/trio/compare/?a={a}&b=999999").status_code == 404
    assert Client().get(f"/ladders/nowhere/compare/?a={a}&b={stranger.pk}").status_code == 404
    assert Client().get(f"/api/ladders/trio/compare/?a={a}&b=x").status_code == 400
    assert Client().get(f"/api/ladders/trio/compare/?a={a}&b={a}").status_code == 400
    assert Client().get(f"/api/ladders/trio/compare/?a={a}&b={stranger.pk}").status_code == 404


def test_a_refused_pick_keeps_the_bots_the_form_understood(trio):
    a = trio["alpha"].pk
    same = Client().get(f"/ladders/trio/compare/?a={a}&b={a}").content.decode()
    assert same.count(f'<option value="{a}" selected>') == 2
    bad = Client().get(f"/ladders/trio/compare/?a={a}&b=abc").content.decode()
    assert bad.count(f'<option value="{a}" selected>') == 1 and bad.count(" selected>") == 1


def test_the_comparison_is_linked_from_the_leaderboard_and_the_bot_page(trio):
    assert 'href="/ladders/trio/compare/"' in Client().get("/ladders/trio/").content.decode()
    bot_page = Client().get(f"/bots/{trio['alpha'].pk}/").content.decode()
    assert f'href="/ladders/trio/compare/?a={trio["alpha"].pk}"' in bot_page


def test_a_fitted_ladder_ranks_by_the_batch_rating_with_its_interval_and_elo_beside(trio):
    for _ in range(2):
        _play(trio, ["alpha", "bravo", "charlie"], [3, 2, 1])
    assert batch_refit(ladder=trio["ladder"])
    page = Client().get("/ladders/trio/").content.decode()
    assert 'data-ranking="batch"' in page
    rows = re.findall(r'<tr data-bot="(\d+)">', page)
    assert rows[0] == str(trio["charlie"].pk) and rows[-1] == str(trio["alpha"].pk)
    charlie = Rating.objects.get(ladder=trio["ladder"], bot=trio["charlie"])
    row = page[page.index(f'<tr data-bot="{charlie.bot_id}">'):]
    row = row[:row.index("</tr>")]
    assert f"{charlie.batch_rating:.0f}" in row and "±" in row and f">{charlie.elo:.0f}<" in row
    assert ("badge provisional" in row) is charlie.batch_provisional
    assert "Its interval is still wide" in page  # what provisional means for this ranking
    legend = page[page.index("What the columns mean"):]
    assert "Batch rating" in legend and "Elo" in legend
    assert 'data-ranking="elo"' in Client().get("/ladders/trio/?by=elo").content.decode()
    api = Client().get("/api/ladders/trio/leaderboard/").json()["results"]
    assert api[0]["bot_name"] == "charlie" and api[0]["batch_rating"] == charlie.batch_rating
    assert api[0]["provisional"] is charlie.batch_provisional
    assert Client().get("/api/ladders/trio/leaderboard/?by=elo").json()["results"][0]["bot_name"] == "charlie"
    assert Client().get("/api/ladders/trio/leaderboard/?by=nonsense").status_code == 400


def test_a_match_page_shows_its_rotation_group_and_hides_the_shared_seed_until_it_is_over(trio):
    order = [trio[n].active_version for n in ("alpha", "bravo", "charlie")]
    games = match_group_create(game=trio["ladder"].game, versions=order, ladder=trio["ladder"], seed=4242)
    outcome = _outcome(trio["ladder"].game, 3)
    match_claim(match_id=games[0].pk, worker="w")
    match_record_outcome(match_id=games[0].pk, outcome=outcome)
    page = Client().get(f"/matches/{games[0].pk}/").content.decode()
    group = games[0].group_id
    assert f"game 1 of 3 of group {group}" in page
    assert f'href="/matches/{games[1].pk}/"' in page and f'href="/matches/{games[2].pk}/"' in page
    assert "4242" not in page and "shown once every game sharing this chance has been played" in page
    api = Client().get(f"/api/matches/{games[0].pk}/").json()
    assert api["seed"] is None and api["group"] == {"id": group, "index": 0, "size": 3, "finished": False}
    assert Client().get(f"/matches/{games[0].pk}/replay.json").status_code == 404
    assert [m["id"] for m in Client().get(f"/api/matches/?group={group}").json()["results"]] == \
        sorted((g.pk for g in games), reverse=True)
    for match in games[1:]:
        match_claim(match_id=match.pk, worker="w")
        match_record_outcome(match_id=match.pk, outcome=outcome)
    page = Client().get(f"/matches/{games[1].pk}/").content.decode()
    assert f"game 2 of 3 of group {group}" in page and "4242" in page
    assert Client().get(f"/api/matches/{games[0].pk}/").json()["seed"] == 4242
    assert Client().get("/api/matches/?group=x").status_code == 400


def test_bots_are_compared_by_name_as_the_match_list_takes_them(trio):
    # Issue 25.1: compare/?b=<name> was a 400 where /matches/?bot=<name> worked.
    page = Client().get("/ladders/trio/compare/?a=alpha&b=Bravo")
    assert page.status_code == 200 and "Not both have a batch rating yet" in page.content.decode()
    api = Client().get(f"/api/ladders/trio/compare/?a={trio['alpha'].pk}&b=bravo")
    assert api.status_code == 200 and api.json()["b"]["bot_name"] == "bravo"
    assert Client().get("/matches/?bot=bravo").status_code == 200
    missing = Client().get("/api/ladders/trio/compare/?a=alpha&b=nobody")
    assert missing.status_code == 400 and "No bot is called 'nobody'" in missing.json()["b"][0]
