"""Parts of pages that change while someone looks are marked for static/arena/live.js: polled
fast while something is pending, slowly (or not at all) once nothing is."""

from __future__ import annotations

import re

from django.test import Client


def _region(page: str, element_id: str) -> str:
    return re.search(rf'<(?:div|main) id="{element_id}"([^>]*)>', page).group(1)


def test_a_pending_version_and_queued_matches_keep_the_bot_page_polling(arena, owner, bot_upload):
    from arena.bots.services import bot_version_create

    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{arena['alpha'].pk}/").content.decode()
    assert "/static/arena/live.js" in page
    for region in ("bot-status", "standing", "versions", "recent-matches"):
        assert "data-live" in _region(page, region) and "data-live-pending" in _region(page, region)  # queued match
    arena["queued"].__class__.objects.filter(pk=arena["queued"].pk).update(status="failed")
    quiet = client.get(f"/bots/{arena['alpha'].pk}/").content.decode()
    assert "data-live-pending" not in _region(quiet, "versions")
    bot_version_create(bot=arena["alpha"], upload=bot_upload(), by=owner)
    pending = client.get(f"/bots/{arena['alpha'].pk}/").content.decode()
    assert "data-live-pending" in _region(pending, "versions")


def test_a_match_page_polls_until_the_match_has_finished(arena):
    queued = Client().get(f"/matches/{arena['queued'].pk}/").content.decode()
    assert "data-live data-live-pending" in _region(queued, "page-main")
    done = Client().get(f"/matches/{arena['played'].pk}/").content.decode()
    assert "data-live-pending" not in _region(done, "page-main")


def test_leaderboards_and_lists_refresh_slowly_when_nothing_is_pending(arena, owner):
    board = Client().get("/ladders/duel/").content.decode()
    assert 'data-live-idle="15"' in _region(board, "leaderboard")
    matches = Client().get("/matches/?status=done").content.decode()
    assert "data-live-pending" not in _region(matches, "match-list")
    assert "data-live-pending" in _region(Client().get("/matches/").content.decode(), "match-list")
    client = Client()
    client.force_login(owner)
    assert "data-live" in _region(client.get("/bots/mine/").content.decode(), "my-bots")
    assert "data-live" in _region(client.get("/").content.decode(), "my-home")
