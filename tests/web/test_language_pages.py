"""The language of a bot on the pages and the API: leaderboards filtered by it, bot and match pages
showing it, each language's starter kit offered on the game's page."""

from __future__ import annotations

import io
import zipfile

from django.test import Client

from arena.bots.models import BotVersion
from arena.matches.services import match_create


def _make_cpp(bot):
    BotVersion.objects.filter(pk=bot.active_version_id).update(language="cpp")


def test_a_leaderboard_keeps_only_the_bots_of_the_language_asked_for(trio):
    _make_cpp(trio["bravo"])
    page = Client().get("/ladders/trio/?language=cpp").content.decode()
    board = page[page.index('id="leaderboard"'):page.index("What the columns mean")]
    assert "bravo" in board and "alpha" not in board and "charlie" not in board
    assert 'data-language="cpp">C++' in board
    everyone = Client().get("/ladders/trio/").content.decode()
    board = everyone[everyone.index('id="leaderboard"'):everyone.index("What the columns mean")]
    assert all(name in board for name in ("alpha", "bravo", "charlie"))
    python = Client().get("/ladders/trio/?language=python").content.decode()
    board = python[python.index('id="leaderboard"'):python.index("What the columns mean")]
    assert "bravo" not in board and "alpha" in board


def test_an_unknown_language_is_an_error_above_an_empty_leaderboard(trio):
    response = Client().get("/ladders/trio/?language=cobol")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Unknown language" in page and "cobol" in page
    board = page[page.index('id="leaderboard"'):page.index("What the columns mean")]
    assert "alpha" not in board


def test_the_api_leaderboard_filters_by_language_and_refuses_an_unknown_one(trio):
    _make_cpp(trio["bravo"])
    rows = Client().get("/api/ladders/trio/leaderboard/?language=cpp").json()["results"]
    assert [(row["bot_name"], row["language"]) for row in rows] == [("bravo", "cpp")]
    response = Client().get("/api/ladders/trio/leaderboard/?language=cobol")
    assert response.status_code == 400 and "language" in response.json()


def test_the_match_page_says_each_seats_language(trio):
    _make_cpp(trio["bravo"])
    versions = [BotVersion.objects.get(pk=trio[name].active_version_id) for name in ("alpha", "bravo", "charlie")]
    match = match_create(game=trio["ladder"].game, versions=versions, ladder=trio["ladder"])
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'data-language="cpp">C++' in page and 'data-language="python">Python' in page


def test_the_game_page_offers_each_languages_kit_and_each_downloads_as_an_uploadable_zip(db):
    from arena.bots.uploads import upload_check

    page = Client().get("/games/deep_sea_adventure/").content.decode()
    for language in ("cpp", "rust", "go", "javascript", "java"):
        assert f"starter-kit.zip?language={language}" in page
        response = Client().get(f"/games/deep_sea_adventure/starter-kit.zip?language={language}")
        assert response.status_code == 200
        assert f"deep_sea_adventure-{language}-starter-kit.zip" in response["Content-Disposition"]
        data = response.content
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
        assert "README.txt" in names
        assert upload_check(filename="kit.zip", data=data).language == language
    assert Client().get("/games/deep_sea_adventure/starter-kit.zip?language=cobol").status_code == 404
    assert Client().get("/games/divee/starter-kit.zip?language=cpp").status_code == 404
