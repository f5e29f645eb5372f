"""The match list's filters: game, ladder (a select), bot, kind and status, each applied; a bad
value is an error shown above an empty list, never silently ignored."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.ladders.services import ladder_create
from arena.matches.services import challenge_create, match_create


def _listed(page: str) -> set[int]:
    return {int(pk) for pk in re.findall(r'<td><a href="/matches/(\d+)/">#', page)}


@pytest.fixture
def spread(arena, ready_bot, owner):
    """The arena's two matches, a challenge, and a match of another game with another bot."""
    from engines import list_games

    challenge = challenge_create(by=owner, bot=arena["alpha"], opponents=[arena["bravo"]])
    other_game = next(g.id for g in list_games() if g.id != arena["ladder"].game and g.min_players <= 2 <= g.max_players)
    other_ladder = ladder_create(slug="elsewhere", name="Elsewhere", game=other_game, seat_count=2)
    x, y = ready_bot("xray", game=other_game), ready_bot("yankee", game=other_game)
    elsewhere = match_create(game=other_game, versions=[x.active_version, y.active_version], ladder=other_ladder)
    return {**arena, "challenge": challenge, "elsewhere": elsewhere, "other_game": other_game}


def _get(query: str) -> str:
    response = Client().get(f"/matches/?{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_without_filters_every_match_is_listed(spread):
    assert _listed(_get("")) == {spread[k].pk for k in ("played", "queued", "challenge", "elsewhere")}


def test_the_bot_filter_applies_by_name_or_id(spread):
    mine = {spread[k].pk for k in ("played", "queued", "challenge")}
    assert _listed(_get("bot=alpha")) == mine
    assert _listed(_get("bot=ALPHA")) == mine
    assert _listed(_get(f"bot={spread['alpha'].pk}")) == mine
    assert _listed(_get("bot=xray")) == {spread["elsewhere"].pk}


def test_the_game_kind_status_and_ladder_filters_apply_and_combine(spread):
    assert _listed(_get(f"game={spread['other_game']}")) == {spread["elsewhere"].pk}
    assert _listed(_get("kind=challenge")) == {spread["challenge"].pk}
    assert _listed(_get("status=done")) == {spread["played"].pk}
    assert _listed(_get("ladder=duel")) == {spread["played"].pk, spread["queued"].pk}
    assert _listed(_get("ladder=duel&status=queued&bot=bravo")) == {spread["queued"].pk}


def test_the_ladder_filter_is_a_select_of_the_ladders(spread):
    page = _get("")
    select = re.search(r'<select name="ladder"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert '<option value="duel">Duel ladder</option>' in select and 'value="elsewhere"' in select
    assert re.search(r'<select name="game"', page) and re.search(r'<select name="kind"', page)


@pytest.mark.parametrize("query,message", [
    ("bot=nobody", "No bot is called"), ("ladder=nowhere", "Select a valid choice"),
    ("status=lost", "Select a valid choice"), ("kind=friendly", "Select a valid choice"),
    ("game=chess", "Select a valid choice"), ("bot=" + "9" * 30, "No bot is called"),
    ("bot=" + "x" * 41, "Ensure this value has at most 40"),
])
def test_a_bad_filter_value_is_an_error_not_ignored(spread, query, message):
    page = _get(query)
    assert message in page and _listed(page) == set()


def test_pages_keep_the_filters(spread, monkeypatch):
    from arena.web import match_views as views

    monkeypatch.setattr(views, "PAGE_SIZE", 1)
    first = _get("bot=alpha&kind=ladder")
    newest = max(spread["played"].pk, spread["queued"].pk)
    assert _listed(first) == {newest}
    older = re.search(r'<a rel="next" href="\?([^"]+)">older</a>', first).group(1).replace("&amp;", "&")
    assert older == f"bot=alpha&kind=ladder&before={newest}"
    second = _get(older)
    assert _listed(second) == {min(spread["played"].pk, spread["queued"].pk)}
    assert 'rel="next"' not in second and 'rel="prev"' in second


def test_a_bot_filter_with_another_filter_still_pages_through_all_matches(spread, monkeypatch):
    from arena.web import match_views as views

    monkeypatch.setattr(views, "PAGE_SIZE", 1)
    page = _get("bot=alpha&status=done")  # alpha's newest seat is a queued match: the page still finds one
    assert _listed(page) == {spread["played"].pk}
