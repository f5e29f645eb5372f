"""The tournament pages in real Chromium on a 390 px phone: the list, a Swiss's standings and rounds,
an elimination's bracket; none scrolls sideways."""

from __future__ import annotations

import pytest

from arena.tournaments.services import tournament_create, tournament_start, tournaments_tick
from tests.browser.test_pages_browser import _phone_check
from tests.factories import clean_outcome, py_upload

pytestmark = pytest.mark.django_db(transaction=True)


def _bots(owner, prefix: str, count: int):
    from arena.bots.services import bot_create
    from arena.runs.smoke import bot_version_record_smoke_test

    bots = []
    for i in range(count):
        bot = bot_create(owner=owner, name=f"{prefix}-with-a-long-name-{i}", game="deep_sea_adventure",
                         upload=py_upload())
        bot_version_record_smoke_test(version_id=bot.versions.get().pk, outcome=clean_outcome("deep_sea_adventure", 2))
        bot.refresh_from_db()
        bots.append(bot)
    return bots


def _play_all():
    from arena.matches.models import Match
    from arena.runs.recording import match_record_outcome

    for match in Match.objects.filter(kind="tournament", status="queued"):
        match_record_outcome(match_id=match.pk, outcome=clean_outcome("deep_sea_adventure", match.seats.count()))
    tournaments_tick()


def test_no_tournament_page_scrolls_sideways_on_a_390_px_phone(phone_page, site, owner):
    swiss = tournament_create(name="A Swiss with a rather long name for a phone", game="deep_sea_adventure",
                              seat_count=4, format="swiss", rounds=2, bots=_bots(owner, "sw", 8))
    tournament_start(tournament_id=swiss.pk)
    _play_all()
    knockout = tournament_create(name="Knockout", game="deep_sea_adventure", seat_count=3, format="elimination",
                                 advance=1, bots=_bots(owner, "ko", 9))
    tournament_start(tournament_id=knockout.pk)
    _play_all()
    for path in ("/tournaments/", f"/tournaments/{swiss.slug}/", f"/tournaments/{knockout.slug}/", "/"):
        _phone_check(phone_page, site + path)
    phone_page.goto(f"{site}/tournaments/{knockout.slug}/")
    assert phone_page.locator(".bracket-round").count() == 2
    assert phone_page.locator("table.standings tbody tr").count() == 9
    assert phone_page.js_errors == []
