"""Every list endpoint is paginated: count, next, previous, results; ?page_size is capped."""

from __future__ import annotations

import pytest

from arena.bots.models import Bot
from tests.api.helpers import client_as

LISTS = ["/api/games/", "/api/ladders/", "/api/ladders/duel/leaderboard/", "/api/bots/",
         "/api/bots/{alpha}/versions/", "/api/bots/{alpha}/history/", "/api/matches/", "/api/challenges/"]


@pytest.mark.parametrize("template", LISTS)
def test_every_list_endpoint_answers_with_a_page(arena, owner, template):
    body = client_as(owner).get(template.format(alpha=arena["alpha"].pk)).json()
    assert set(body) == {"count", "next", "previous", "results"}


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
