"""The leaderboard's HTML is cached under the board's version (``ladder_board_version``, read from
the rows' own versions): an unchanged board is drawn once, and every change a board shows reaches
it on the next request, whichever code wrote it (here plain ORM updates, which no service sees).
Transactional: the version is only trusted outside a transaction that has written."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.bots.models import Bot, BotVersion
from arena.ladders.models import Ladder, Rating
from arena.ladders.selectors import ladder_board_version

pytestmark = pytest.mark.django_db(transaction=True)


def _board(path: str = "/ladders/trio/") -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        page = Client().get(path).content.decode()
    board = re.search(r'<div id="leaderboard"[^>]*>(.*?)</div>\s*<details', page, re.S).group(1)
    return board, [q["sql"] for q in queries.captured_queries]


def _row(board: str, bot: Bot) -> str:
    return re.search(rf'<tr data-bot="{bot.pk}">.*?</tr>', board, re.S).group(0)


def test_an_unchanged_board_is_drawn_once_then_read_from_the_cache(trio):
    first, drawn = _board()
    again, cached = _board()
    assert again == first
    assert any("RANK() OVER" in sql.upper() for sql in drawn)
    assert not any("RANK() OVER" in sql.upper() for sql in cached)   # not ranked, not drawn again
    # Each ranking, page and language has its own entry.
    by_batch, _ = _board("/ladders/trio/?by=batch")
    assert "Batch rating" in by_batch and by_batch != first


def _elo(trio):
    Rating.objects.filter(bot=trio["alpha"]).update(elo=1987.0)
    return lambda board: "1987" in _row(board, trio["alpha"])


def _paused(trio):
    BotVersion.objects.filter(pk=trio["alpha"].active_version_id).update(paused_at=timezone.now(), pause_reason="x")
    return lambda board: 'class="badge paused"' in _row(board, trio["alpha"])


def _renamed(trio):
    Bot.objects.filter(pk=trio["alpha"].pk).update(name="alphonse")
    return lambda board: ">alphonse</a>" in _row(board, trio["alpha"])


def _owner_renamed(trio):
    get_user_model().objects.filter(pk=trio["alpha"].owner_id).update(username="alicia")
    return lambda board: ">alicia</a>" in _row(board, trio["alpha"])


def _taken_off(trio):
    Bot.objects.filter(pk=trio["alpha"].pk).update(is_active=False)
    return lambda board: "inactive" in _row(board, trio["alpha"])


def _left(trio):
    Rating.objects.filter(bot=trio["alpha"]).delete()
    return lambda board: f'data-bot="{trio["alpha"].pk}"' not in board


def _refitted(trio):
    Rating.objects.filter(ladder=trio["ladder"]).update(batch_rating=1500.0, batch_low=1400.0, batch_high=1600.0)
    Ladder.objects.filter(pk=trio["ladder"].pk).update(batch_fitted_at=timezone.now())
    return lambda board: 'data-ranking="batch"' in board


@pytest.mark.parametrize("change", [_elo, _paused, _renamed, _owner_renamed, _taken_off, _left, _refitted])
def test_every_change_a_board_shows_reaches_it_on_the_next_request(trio, change):
    before, _ = _board()
    _board()   # cached now
    shows = change(trio)
    assert not shows(before)
    after, _ = _board()
    assert shows(after), after


def test_no_version_is_trusted_inside_a_transaction_that_has_written(trio):
    from django.db import transaction

    assert ladder_board_version(ladder=trio["ladder"]) is not None
    with transaction.atomic():
        assert ladder_board_version(ladder=trio["ladder"]) is not None   # only read so far
        Rating.objects.filter(bot=trio["alpha"]).update(elo=1000.0)
        assert ladder_board_version(ladder=trio["ladder"]) is None
