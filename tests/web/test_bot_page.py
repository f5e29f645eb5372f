"""The bot page: rating charts (uPlot, data in the page), results by opponent, faults and decision
times over recent matches, versions with their smoke tests, pauses, and "All matches"."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.bots.services import bot_create
from arena.ladders.batch import batch_refit
from arena.ladders.models import RatingSnapshot
from arena.ladders.services import ladder_create
from arena.matches.services import match_create
from arena.runs.recording import match_record_outcome
from arena.matches.smoke import smoke_tests_of
from arena.runs.smoke import bot_version_judge_smoke_tests, smoke_test_start
from tests.factories import summary_outcome as _outcome


def _json_script(page: str, element_id: str):
    found = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1)) if found else None


@pytest.fixture
def duel(arena):
    """The arena's duel ladder with three more recorded matches of alpha and bravo."""
    ladder, alpha, bravo = arena["ladder"], arena["alpha"], arena["bravo"]
    for ranks, faults in (([1, 2], []), ([2, 1], []), ([1, 2], [{"seat": 0, "kind": "crash", "step": 2,
                                                                  "message": "boom"}])):
        match = match_create(game=ladder.game, versions=[alpha.active_version, bravo.active_version], ladder=ladder)
        outcome = _outcome(ladder.game, 2, faults=faults)
        outcome["ranks"] = ranks
        match_record_outcome(match_id=match.pk, outcome=outcome)
    return arena


def test_the_rating_chart_gets_one_point_per_rating_change_and_loads_upLot(duel):
    page = Client().get(f"/bots/{duel['bravo'].pk}/").content.decode()
    charts = _json_script(page, "rating-charts")
    assert set(charts) == {"duel"}
    chart = charts["duel"]
    assert len(chart["t"]) == len(chart["v"]) == len(chart["m"]) == chart["total"] == 4
    assert chart["v"][-1] == pytest.approx(duel["bravo"].ratings.get().elo, abs=0.001)
    assert chart["m"][0] == duel["played"].pk
    assert '/static/vendor/uplot/uPlot.iife.min.js' in page and '/static/arena/charts.js' in page
    assert 'data-chart="rating"' in page and 'data-key="duel"' in page


def test_the_rating_chart_keeps_the_newest_points_of_a_long_history(duel, monkeypatch):
    from arena.web import bot_views as views

    monkeypatch.setattr(views, "RATING_CHART_POINTS", 2)
    original = views.bot_rating_charts
    monkeypatch.setattr(views, "bot_rating_charts", lambda **kw: original(**{**kw, "points": 2}))
    page = Client().get(f"/bots/{duel['bravo'].pk}/").content.decode()
    chart = _json_script(page, "rating-charts")["duel"]
    assert len(chart["v"]) == 2 and chart["total"] == 4
    assert chart["v"][-1] == pytest.approx(duel["bravo"].ratings.get().elo, abs=0.001)
    assert "its last 2 of 4 matches" in page


def test_the_rating_chart_carries_the_official_rating_of_each_refit_with_its_interval(duel):
    assert batch_refit(ladder=duel["ladder"], force=True) is True
    page = Client().get(f"/bots/{duel['bravo'].pk}/").content.decode()
    official = _json_script(page, "rating-charts")["duel"]["official"]
    kept = RatingSnapshot.objects.get(rating__bot=duel["bravo"])
    assert official == {"t": [round(kept.fitted_at.timestamp(), 3)], "v": [round(kept.value, 1)],
                        "lo": [round(kept.low, 1)], "hi": [round(kept.high, 1)]}
    assert "Official rating (95 % interval dashed) and live Elo" in page


def test_results_by_opponent_count_games_ahead_behind_and_mean_rank(duel):
    page = Client().get(f"/bots/{duel['alpha'].pk}/").content.decode()
    table = page[page.index("Results by opponent"):page.index("Versions")]
    row = re.search(r"<tr><td><a [^>]*>bravo</a></td>(.*?)</tr>", table, re.S).group(1)
    cells = re.findall(r'<td class="num">(.*?)</td>', row, re.S)
    # alpha's ranks against bravo: 2 (faulted), 1, 2, 1 (faulted but ranked 1 as recorded)
    assert cells[0] == "4"                              # games
    assert cells[1].startswith("2 ")                    # ahead
    assert cells[2] == "2"                              # behind
    assert cells[3] == "1.50"                           # mean rank


def test_the_fault_rate_and_kinds_of_recent_matches_are_shown(duel):
    page = Client().get(f"/bots/{duel['alpha'].pk}/").content.decode()
    assert "Over its last 4 finished matches: <strong>2 faulted</strong> (50%)" in page
    assert "crash ×1" in page and "timeout ×1" in page


def test_decision_times_are_charted_per_match(duel):
    page = Client().get(f"/bots/{duel['alpha'].pk}/").content.decode()
    times = _json_script(page, "decision-times")
    assert len(times["t"]) == 4 and times["p50"] == [3.0] * 4 and times["p95"] == [7.5] * 4
    assert times["max"] == [9.0] * 4 and 'data-chart="times"' in page


def _record(ladder, versions, ranks, faults=()):
    match = match_create(game=ladder.game, versions=versions, ladder=ladder)
    outcome = _outcome(ladder.game, 2, faults=list(faults))
    outcome["ranks"] = ranks
    match_record_outcome(match_id=match.pk, outcome=outcome)
    return match


def test_a_recorded_match_shows_on_the_next_view_of_the_page(duel):
    """The charts, recent form and opponents are cached, under what recording a match changes."""
    client, ladder, alpha = Client(), duel["ladder"], duel["alpha"]
    url = f"/bots/{alpha.pk}/"
    page = client.get(url).content.decode()
    assert "Over its last 4 finished matches: <strong>2 faulted</strong> (50%)" in page
    assert client.get(url).content.decode() == page  # from the cache: nothing changed
    match = _record(ladder, [alpha.active_version, duel["bravo"].active_version], [1, 2],
                    faults=[{"seat": 0, "kind": "illegal", "step": 1, "message": "no such move"}])
    page = client.get(url).content.decode()
    assert "Over its last 5 finished matches: <strong>3 faulted</strong> (60%)" in page and "illegal ×1" in page
    chart = _json_script(page, "rating-charts")["duel"]
    assert chart["total"] == 5 and chart["m"][-1] == match.pk
    assert chart["v"][-1] == pytest.approx(alpha.ratings.get().elo, abs=0.001)
    table = page[page.index("Results by opponent"):page.index("Versions")]
    row = re.search(r"<tr><td><a [^>]*>bravo</a></td>(.*?)</tr>", table, re.S).group(1)
    assert re.findall(r'<td class="num">(.*?)</td>', row, re.S)[0] == "5"


def test_all_matches_opens_the_match_list_filtered_to_the_bot(duel):
    page = Client().get(f"/bots/{duel['alpha'].pk}/").content.decode()
    link = re.search(r'<a href="([^"]+)" class="all-matches">All matches</a>', page).group(1)
    assert link == "/matches/?bot=alpha"
    listed = Client().get(link).content.decode()
    assert listed.count('<td><a href="/matches/') == 5  # alpha's five matches (one queued)
    assert "Matches of <a" in listed


@pytest.fixture
def smoked(owner, ladder, two_player_game, bot_upload):
    """alice's bot whose version 1 passed a two-test smoke test, and version 2 still pending."""
    bot = bot_create(owner=owner, name="smoky", game=two_player_game, upload=bot_upload())
    ladder_create(slug="solo-or-trio", name="Other", game=two_player_game, seat_count=3)
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    for test in smoke_tests(version):
        outcome = {**_outcome(two_player_game, test.seat_count), "seed": test.seed}
        match_record_outcome(match_id=test.match_id, outcome=outcome, replay=b'{"format": "x"}')
    bot_version_judge_smoke_tests(version_id=version.pk)
    from arena.bots.services import bot_version_create

    pending = bot_version_create(bot=bot, upload=bot_upload(), by=owner)
    smoke_test_start(version_id=pending.pk)
    return {"bot": bot, "v1": version, "v2": pending}


def smoke_tests(version):
    """The version's smoke matches as its owner reads them, in plan order."""
    return smoke_tests_of(version_ids=[version.pk]).get(version.pk, [])


def test_the_owner_sees_each_smoke_test_with_a_link_to_its_page_and_replay(smoked, owner):
    client = Client()
    client.force_login(owner)
    bot = smoked["bot"]
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    for test in smoke_tests(smoked["v1"]):
        assert f"/bots/{bot.pk}/versions/1/smoke/{test.index}/" in page
        assert f"/bots/{bot.pk}/versions/1/smoke/{test.index}/replay.json" in page
    assert "/versions/2/smoke/" not in page  # still running: no links, no seeds
    assert all(str(t.seed) not in page for t in smoke_tests(smoked["v2"]))
    detail = client.get(f"/bots/{bot.pk}/versions/1/smoke/1/")
    text = detail.content.decode()
    assert detail.status_code == 200 and "3 seats" in text and "passed" in text
    assert str(smoke_tests(smoked["v1"])[1].seed) in text
    assert 'id="replay-viewer"' in text and "replay.full.json" in text
    replay = client.get(f"/bots/{bot.pk}/versions/1/smoke/1/replay.json")
    assert replay.status_code == 200 and json.loads(replay.content) == {"format": "x"}
    assert client.get(f"/bots/{bot.pk}/versions/2/smoke/0/").status_code == 404  # not over yet


def test_a_solo_smoke_test_with_options_says_so_in_words_and_shows_the_options_as_json(owner, bot_upload):
    bot = bot_create(owner=owner, name="soloist", game="divee", upload=bot_upload())
    ladder_create(slug="divee-tiles-solo", name="Solo", game="divee", seat_count=1, options={"special_tiles": True})
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    [test] = smoke_tests(version)
    match_record_outcome(match_id=test.match_id, outcome={**_outcome("divee", 1), "seed": test.seed}, replay=b"{}")
    bot_version_judge_smoke_tests(version_id=version.pk)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{bot.pk}/versions/1/smoke/0/").content.decode()
    assert "<code>{&quot;special_tiles&quot;: true}</code>, 1 seat; your bot in seat 0, alone" in page
    assert "1 seats" not in page and "in the others" not in page


@pytest.mark.parametrize("role,status", [("other_user", 403), ("anonymous", 302)])
def test_smoke_tests_are_the_owners(smoked, request, role, status):
    client = Client()
    user = request.getfixturevalue(role)
    if user.is_authenticated:
        client.force_login(user)
    bot = smoked["bot"]
    assert client.get(f"/bots/{bot.pk}/versions/1/smoke/0/").status_code == status
    assert client.get(f"/bots/{bot.pk}/versions/1/smoke/0/replay.json").status_code == status
    assert "/versions/1/smoke/" not in client.get(f"/bots/{bot.pk}/").content.decode()


def _pause(bot):
    BotVersion.objects.filter(pk=bot.active_version_id).update(
        paused_at=timezone.now(), pause_reason="5 faulted ladder matches in a row (crash ×5)")


@pytest.mark.parametrize("role,private", [("owner", True), ("staff", True), ("other_user", False)])
def test_a_paused_version_shows_why_and_its_owner_gets_the_faulted_matches(duel, role, private, request):
    _pause(duel["alpha"])
    client = Client()
    client.force_login(request.getfixturevalue(role))
    page = client.get(f"/bots/{duel['alpha'].pk}/").content.decode()
    assert "v1 is paused from the ladders" in page and "5 faulted ladder matches in a row (crash ×5)" in page
    faulted = list(duel["alpha"].active_version.seats.exclude(fault_kind="").values_list("match_id", flat=True))
    assert all((f'href="/matches/{pk}/"' in page.split("is paused")[1].split("</div>")[0]) == private
               for pk in faulted)
    assert ("Resume v1" in page) == private


def test_the_owner_resumes_a_paused_version(duel, owner, other_user):
    _pause(duel["alpha"])
    stranger = Client()
    stranger.force_login(other_user)
    assert stranger.post(f"/bots/{duel['alpha'].pk}/resume/").status_code == 403
    client = Client()
    client.force_login(owner)
    response = client.post(f"/bots/{duel['alpha'].pk}/resume/", follow=True)
    assert "plays ladder matches again" in response.content.decode()
    version = BotVersion.objects.get(pk=duel["alpha"].active_version_id)
    assert version.paused_at is None and version.resumed_at is not None


def test_my_bots_and_the_home_page_show_the_pause_to_the_owner(duel, owner):
    _pause(duel["alpha"])
    client = Client()
    client.force_login(owner)
    for url in ("/bots/mine/", "/"):
        page = client.get(url).content.decode()
        assert "paused" in page and "5 faulted ladder matches in a row (crash ×5)" in page
        assert f'href="/bots/{duel["alpha"].pk}/"' in page
    assert "Needs you" in client.get("/").content.decode()
