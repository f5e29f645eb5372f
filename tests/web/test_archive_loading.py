"""Pages and API reads never load bot archives (up to 5 MiB each) from the database."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

URLS = ["/", "/ladders/duel/", "/bots/{alpha}/", "/matches/", "/matches/{played}/", "/bots/mine/",
        "/api/bots/", "/api/bots/{alpha}/", "/api/bots/{alpha}/versions/", "/api/ladders/duel/leaderboard/",
        "/api/matches/", "/api/matches/{played}/", "/api/matches/{played}/logs/0/", "/api/challenges/"]


@pytest.mark.parametrize("template", URLS)
def test_a_read_never_selects_the_archive_column(arena, owner, template):
    client = Client()
    client.force_login(owner)
    url = template.format(alpha=arena["alpha"].pk, played=arena["played"].pk)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    loading = [q["sql"] for q in queries.captured_queries if '"bots_botversion"."archive"' in q["sql"]]
    assert loading == []
