"""Every list endpoint is paginated: small lists by page number (count, next, previous, results),
growing lists (matches, challenges, histories) by keyset (next, previous, results); ?page_size is capped."""

from __future__ import annotations

import pytest

from arena.bots.models import Bot
from tests.api.helpers import client_as

NUMBERED_LISTS = ["/api/games/", "/api/ladders/", "/api/ladders/duel/leaderboard/", "/api/bots/",
                  "/api/bots/{alpha}/versions/"]
KEYSET_LISTS = ["/api/bots/{alpha}/history/", "/api/matches/", "/api/challenges/"]


@pytest.mark.parametrize("template", NUMBERED_LISTS)
def test_every_small_list_answers_with_a_numbered_page(arena, owner, template):
    body = client_as(owner).get(template.format(alpha=arena["alpha"].pk)).json()
    assert set(body) == {"count", "next", "previous", "results"}


@pytest.mark.parametrize("template", KEYSET_LISTS)
def test_every_growing_list_answers_with_a_keyset_page_without_a_count(arena, owner, template):
    body = client_as(owner).get(template.format(alpha=arena["alpha"].pk)).json()
    assert set(body) == {"next", "previous", "results"}


def test_pages_follow_one_another_without_gaps_or_repeats(owner, two_player_game):
    Bot.objects.bulk_create([Bot(owner=owner, name=f"bot{i:02d}", game=two_player_game) for i in range(7)])
    client = client_as(None)
    seen, url = [], "/api/bots/?page_size=3"
    while url:
        body = client.get(url).json()
        assert body["count"] == 7
        seen += [b["name"] for b in body["results"]]
        url = body["next"]
    assert seen == [f"bot{i:02d}" for i in range(7)]


def test_the_page_size_is_capped_at_200(owner, two_player_game):
    Bot.objects.bulk_create([Bot(owner=owner, name=f"bot{i:03d}", game=two_player_game) for i in range(205)])
    body = client_as(None).get("/api/bots/?page_size=1000").json()
    assert len(body["results"]) == 200 and body["next"]


def test_a_page_past_the_end_is_404(owner, two_player_game):
    assert client_as(None).get("/api/bots/?page=9").status_code == 404
