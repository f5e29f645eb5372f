"""Every page costs the same number of queries however many rows are behind it, reads no bot
archives and no owners' password hashes."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.ladders.services import ladder_create
from tests.web.population import add_bots, add_matches

PAGES = ["/", "/games/", "/games/{game}/", "/ladders/", "/ladders/big/", "/ladders/big/?page=2",
         "/bots/{star}/", "/bots/mine/", "/matches/", "/matches/?bot={star_name}&kind=ladder&status=done",
         "/matches/{match}/", "/users/{owner}/", "/docs/writing-a-bot/", "/ladders/big/compare/",
         "/ladders/big/compare/?a={star}&b={opponent}", "/ladders/big/?by=batch"]


@pytest.fixture
def game_id() -> str:
    from engines import list_games

    return next(g.id for g in list_games() if g.min_players <= 3 <= g.max_players)


@pytest.fixture
def world(owner, game_id):
    """A 3-seat ladder whose size the test grows; alice's bot ``star`` plays all its matches."""
    from arena.bots.models import Bot

    ladder = ladder_create(slug="big", name="Big ladder", game=game_id, seat_count=3)
    state = {"ladder": ladder, "rounds": 0}

    def grow(bots: int, matches: int):
        state["rounds"] += 1
        prefix = f"r{state['rounds']}"
        new = add_bots(ladder=ladder, count=bots, prefix=prefix, owners=max(2, bots // 3))
        star = Bot.objects.filter(name="r1-0").first() or new[0]
        if star.owner_id != owner.pk:
            Bot.objects.filter(pk=star.pk).update(owner=owner)
        ids = add_matches(ladder=ladder, bot=star, opponents=new[1:], count=matches, seed=state["rounds"])
        return {"star": star.pk, "star_name": star.name, "match": ids[-1], "owner": owner.username,
                "game": ladder.game, "opponent": Bot.objects.get(name="r1-1").pk}

    return grow


def _count(client, url) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        assert response.status_code == 200, url
    return len(queries.captured_queries), [q["sql"] for q in queries.captured_queries]


def test_each_page_costs_the_same_queries_with_ten_times_the_rows(world, owner):
    client = Client()
    client.force_login(owner)
    small = world(bots=60, matches=30)
    before = {url: _count(client, url.format(**small))[0] for url in PAGES}
    big = world(bots=600, matches=300)
    small.update(match=big["match"])
    after = {url: _count(client, url.format(**small))[0] for url in PAGES}
    grew = {url: (before[url], after[url]) for url in PAGES if after[url] != before[url]}
    assert grew == {}


@pytest.mark.parametrize("url", PAGES)
def test_no_page_reads_archives_or_password_hashes(world, owner, url):
    client = Client()
    client.force_login(owner)
    names = world(bots=30, matches=12)
    _, queries = _count(client, url.format(**names))
    leaking = [sql for sql in queries if '"archive"' in sql or '"password"' in sql.replace('"auth_user"."password"', "")]
    session_user = [sql for sql in queries if '"auth_user"."password"' in sql]
    assert leaking == []
    # Only the signed-in user's own row is read whole (Django's session authentication does that).
    assert len(session_user) <= 1 and all("LIMIT 21" in sql or "LIMIT 1" in sql for sql in session_user)
