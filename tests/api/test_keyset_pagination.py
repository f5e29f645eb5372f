"""Match lists, challenges and rating histories page by keyset: ?before=ID / ?after=ID from the
next and previous links, no count, no OFFSET; a deep page costs the queries a first page costs."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.matches.models import Match
from arena.matches.services import match_create
from tests.api.helpers import client_as


@pytest.fixture
def seven_more(arena):
    """Seven more queued matches of alpha and bravo: nine in all, ids ascending with age."""
    alpha, bravo = arena["alpha"].active_version, arena["bravo"].active_version
    for _ in range(7):
        match_create(game=arena["ladder"].game, versions=[alpha, bravo], ladder=arena["ladder"])
    return list(Match.objects.order_by("-id").values_list("id", flat=True))


def _walk(client, url: str, link: str) -> tuple[list[int], list[str]]:
    seen, urls = [], []
    while url:
        urls.append(url)
        body = client.get(url).json()
        assert set(body) == {"next", "previous", "results"}
        seen += [row.get("id", row.get("match")) for row in body["results"]]
        url = body[link]
    return seen, urls


@pytest.mark.parametrize("filters", ["", "&status=queued", "&ladder=duel", "&bot={alpha}", "&kind=ladder"])
def test_match_pages_follow_one_another_newest_first_and_back_without_gaps_or_repeats(arena, seven_more, filters):
    client = client_as(None)
    query = filters.format(alpha=arena["alpha"].pk)
    expected = seven_more[:-1] if "status" in query else seven_more  # the oldest match is done
    forward, urls = _walk(client, f"/api/matches/?page_size=2{query}", "next")
    assert forward == expected
    assert len(urls) == (len(expected) + 1) // 2
    last = client.get(urls[-1]).json()
    pages, url = [], last["previous"]
    while url:
        body = client.get(url).json()
        pages.append([m["id"] for m in body["results"]])
        url = body["previous"]
    assert [pk for page in reversed(pages) for pk in page] == expected[:-len(last["results"])]


def test_the_first_page_has_no_previous_link_and_the_last_no_next(arena, seven_more):
    client = client_as(None)
    first = client.get("/api/matches/?page_size=4").json()
    assert first["previous"] is None and f"before={seven_more[3]}" in first["next"]
    second = client.get(first["next"]).json()
    assert [m["id"] for m in second["results"]] == seven_more[4:8]
    assert f"after={seven_more[4]}" in second["previous"]
    assert [m["id"] for m in client.get(second["previous"]).json()["results"]] == seven_more[:4]


def test_before_and_after_together_give_the_matches_between(arena, seven_more):
    ids = [m["id"] for m in client_as(None).get(
        f"/api/matches/?before={seven_more[1]}&after={seven_more[5]}").json()["results"]]
    assert ids == seven_more[2:5]


def _match_queries(queries) -> list[str]:
    return [q["sql"] for q in queries if 'FROM "matches_match"' in q["sql"]]


@pytest.mark.parametrize("url", ["/api/matches/?before={deep}", "/api/matches/?bot={alpha}&before={deep}",
                                 "/api/matches/?status=queued&before={deep}", "/api/challenges/?before={deep}",
                                 "/matches/?before={deep}"])
def test_a_deep_page_is_read_from_its_id_on_without_offset_or_count(arena, seven_more, owner, url):
    client = client_as(owner) if "challenges" in url else Client()
    url = url.format(deep=seven_more[-2], alpha=arena["alpha"].pk)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    sqls = [q["sql"] for q in queries.captured_queries]
    assert not any("OFFSET" in sql or "COUNT(" in sql.upper() for sql in sqls), sqls
    listing = _match_queries(queries.captured_queries)[0]
    assert f'"matches_match"."id" < {seven_more[-2]}' in listing and "LIMIT" in listing


def test_a_bots_matches_come_from_its_seats_without_a_join_over_matches_or_distinct(arena, seven_more):
    with CaptureQueriesContext(connection) as queries:
        client_as(None).get(f"/api/matches/?bot={arena['alpha'].pk}&before={seven_more[2]}")
    listing = _match_queries(queries.captured_queries)[0]
    assert "DISTINCT" not in listing
    from_clause = listing.split("WHERE")[0]
    assert "matches_matchseat" not in from_clause  # the seats are a subquery, bounded like the page
    assert f'"match_id" < {seven_more[2]}' in listing


@pytest.mark.parametrize("url", ["/api/matches/?page_size=3", "/api/matches/?bot={alpha}&page_size=3",
                                 "/api/challenges/?page_size=3", "/api/bots/{alpha}/history/?page_size=3",
                                 "/matches/"])
def test_a_deep_page_takes_as_many_queries_as_the_first(arena, seven_more, owner, url):
    client = Client() if url.startswith("/matches/") else client_as(owner)
    url = url.format(alpha=arena["alpha"].pk)
    with CaptureQueriesContext(connection) as first:
        client.get(url)
    joiner = "&" if "?" in url else "?"
    with CaptureQueriesContext(connection) as deep:
        assert client.get(f"{url}{joiner}before={seven_more[-1] + 1}").status_code == 200
    assert len(deep.captured_queries) == len(first.captured_queries)


def test_a_rating_history_pages_oldest_first(arena, ready_bot):
    from arena.runs.recording import match_record_outcome
    from tests.factories import summary_outcome as _outcome

    alpha, bravo = arena["alpha"], arena["bravo"]
    for _ in range(4):
        match = match_create(game=arena["ladder"].game, versions=[alpha.active_version, bravo.active_version],
                             ladder=arena["ladder"])
        match_record_outcome(match_id=match.pk, outcome=_outcome(arena["ladder"].game, 2))
    expected = list(alpha.rating_changes.order_by("id").values_list("match_id", flat=True))
    assert len(expected) == 5
    seen, urls = _walk(client_as(None), f"/api/bots/{alpha.pk}/history/?page_size=2", "next")
    assert seen == expected and len(urls) == 3
    assert "after=" in client_as(None).get(urls[0]).json()["next"]


@pytest.fixture
def two_ladders(arena):
    """alpha's changes on two ladders of its game, interleaved: 1 (the arena's) + 4 on "duel",
    3 on "duel-too"; returns the ids of its changes on "duel", oldest first."""
    from arena.ladders.services import ladder_create, ladder_enter
    from arena.runs.recording import match_record_outcome
    from tests.factories import summary_outcome as _outcome

    alpha, bravo, duel = arena["alpha"], arena["bravo"], arena["ladder"]
    other = ladder_create(slug="duel-too", name="Duel too", game=duel.game, seat_count=2)
    for bot in (alpha, bravo):
        ladder_enter(ladder=other, bot=bot)
    for ladder in (duel, other, duel, other, duel, other, duel):
        match = match_create(game=duel.game, versions=[alpha.active_version, bravo.active_version], ladder=ladder)
        match_record_outcome(match_id=match.pk, outcome=_outcome(duel.game, 2))
    return list(alpha.rating_changes.filter(ladder=duel).order_by("id").values_list("id", flat=True))


def _history_ids(client, url: str, link: str) -> tuple[list[int], list[str]]:
    seen, urls = [], []
    while url:
        urls.append(url)
        body = client.get(url).json()
        seen += [row["match"] for row in body["results"]]
        url = body[link]
    return seen, urls


def test_a_rating_history_on_one_ladder_pages_oldest_first_and_back(arena, two_ladders):
    from arena.ladders.models import RatingChange

    alpha = arena["alpha"]
    expected = list(RatingChange.objects.filter(pk__in=two_ladders).order_by("id").values_list("match_id", flat=True))
    client = client_as(None)
    seen, urls = _history_ids(client, f"/api/bots/{alpha.pk}/history/?ladder=duel&page_size=2", "next")
    assert seen == expected and len(urls) == 3
    back, _ = _history_ids(client, client.get(urls[-1]).json()["previous"], "previous")
    assert sorted(back) == expected[:4]


def test_a_history_cursor_that_is_no_change_of_the_bot_on_the_ladder_still_bounds_by_id(arena, two_ladders):
    from arena.ladders.models import RatingChange

    alpha = arena["alpha"]
    elsewhere = RatingChange.objects.filter(bot=alpha, ladder__slug="duel-too").order_by("id")[1]  # between duel's
    after = [RatingChange.objects.get(pk=pk).match_id for pk in two_ladders if pk > elsewhere.pk]
    before = [RatingChange.objects.get(pk=pk).match_id for pk in two_ladders if pk < elsewhere.pk]
    client = client_as(None)
    url = f"/api/bots/{alpha.pk}/history/?ladder=duel"
    assert [row["match"] for row in client.get(f"{url}&after={elsewhere.pk}").json()["results"]] == after
    assert [row["match"] for row in client.get(f"{url}&before={elsewhere.pk}").json()["results"]] == before
    assert 0 < len(after) and 0 < len(before)


def test_a_deep_page_of_a_history_on_one_ladder_starts_at_its_cursor_in_the_sequence(arena, two_ladders):
    alpha = arena["alpha"]
    url = f"/api/bots/{alpha.pk}/history/?ladder=duel&page_size=2"
    with CaptureQueriesContext(connection) as first:
        client_as(None).get(url)
    with CaptureQueriesContext(connection) as deep:
        assert client_as(None).get(f"{url}&after={two_ladders[1]}").status_code == 200
    assert len(deep.captured_queries) == len(first.captured_queries)
    listing = next(q["sql"] for q in deep.captured_queries if 'FROM "ladders_ratingchange"' in q["sql"])
    assert '"ladders_ratingchange"."sequence" >' in listing and f'"ladders_ratingchange"."id" > {two_ladders[1]}' \
        in listing and 'ORDER BY "ladders_ratingchange"."sequence" ASC' in listing


@pytest.mark.parametrize("query,field", [
    ("page=2", "page"), ("before=abc", "before"), ("before=0", "before"), ("after=-3", "after"),
    (f"before={2**63}", "before"), ("before=", "before"), ("page_size=0", "page_size"),
    ("page_size=many", "page_size"), ("bot=0", "bot"), ("bot=x", "bot"), ("bot=", "bot"), ("status=", "status"),
])
def test_a_bad_paging_or_filter_value_of_a_match_list_is_refused_with_400(arena, query, field):
    response = client_as(None).get(f"/api/matches/?{query}")
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.parametrize("query", [f"bot={2**63}", "bot=00", "bot=nobody-has-this"])
def test_a_bot_name_or_id_no_bot_has_lists_no_match(arena, query):
    """Each could be a bot's name (2-40 letters and digits): only the database knows none has it."""
    response = client_as(None).get(f"/api/matches/?{query}")
    assert response.status_code == 200 and response.json()["results"] == []


@pytest.mark.parametrize("query,field", [("page=0", "page"), ("page=two", "page"), ("page=", "page"),
                                         ("page_size=-1", "page_size"), ("page_size=", "page_size")])
def test_a_bad_page_number_or_size_of_a_numbered_list_is_refused_with_400(arena, query, field):
    response = client_as(None).get(f"/api/bots/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_the_matches_page_links_older_and_newer_pages_keeping_its_filters(arena, seven_more, settings):
    import re

    from arena.web import match_views as views

    views.PAGE_SIZE, old = 4, views.PAGE_SIZE
    try:
        page = Client().get("/matches/?status=queued").content.decode()
        older = re.search(r'<a rel="next" href="([^"]+)"', page).group(1).replace("&amp;", "&")
        assert "status=queued" in older and f"before={seven_more[3]}" in older
        assert 'rel="prev"' not in page
        second = Client().get(f"/matches/{older}").content.decode()
        assert f"/matches/{seven_more[4]}/" in second and f"/matches/{seven_more[3]}/" not in second
        newer = re.search(r'<a rel="prev" href="([^"]+)"', second).group(1).replace("&amp;", "&")
        assert f"/matches/{seven_more[0]}/" in Client().get(f"/matches/{newer}").content.decode()
    finally:
        views.PAGE_SIZE = old
