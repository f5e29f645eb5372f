"""Luck on the pages (docs/luck.md): the match page's Luck and Play columns, the viewer's luck data
(``/matches/<id>/luck.json``) and the bot page's mean luck and luck-adjusted mean."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from arena.ladders.models import Rating
from arena.matches.models import MatchSeat
from arena.runs.luck import measure_match_luck
from arena.web.templatetags.arena_extras import signed

pytestmark = pytest.mark.django_db


def test_the_match_page_shows_luck_and_play_once_measured(replayed_match):
    page = Client().get(f"/matches/{replayed_match.pk}/").content.decode()
    assert ">Luck</abbr>" in page and ">Play</abbr>" in page
    assert f'data-luck-url="/matches/{replayed_match.pk}/luck.json"' in page
    assert "Measured shortly after the match is recorded" in page
    measure_match_luck(replayed_match.pk)
    page = Client().get(f"/matches/{replayed_match.pk}/").content.decode()
    for seat in MatchSeat.objects.filter(match=replayed_match):
        assert f'<td class="num" data-role="luck">{signed(seat.luck, 1)}</td>' in page
        assert f'<td class="num" data-role="play">{seat.score - seat.luck:.1f}</td>' in page


def test_the_viewer_reads_each_steps_luck(replayed_match):
    response = Client().get(f"/matches/{replayed_match.pk}/luck.json")
    assert response.status_code == 200
    report = response.json()
    assert len(report["luck"]) == len(report["scores"]) == len(report["play"]) == 3
    assert all(len(step) == 3 for step in report["steps"])


def test_no_luck_without_a_public_replay_and_a_clear_error_when_it_cannot_be_measured(arena):
    assert Client().get(f"/matches/{arena['queued'].pk}/luck.json").status_code == 404
    broken = Client().get(f"/matches/{arena['played'].pk}/luck.json")
    assert broken.status_code == 409
    assert "cannot be measured" in broken.json()["detail"]
    assert Client().get("/matches/999999/luck.json").status_code == 404


def test_the_bot_page_gives_mean_luck_and_the_luck_adjusted_mean(replayed_match):
    seat = MatchSeat.objects.select_related("bot_version__bot").get(match=replayed_match, seat=2)
    url = f"/bots/{seat.bot_version.bot_id}/"
    assert "No match of this bot has its luck measured yet." in Client().get(url).content.decode()
    measure_match_luck(replayed_match.pk)
    seat.refresh_from_db()
    page = Client().get(url).content.decode()
    assert "Over its 1 measured match:" in page
    assert f"mean luck {signed(seat.luck, 2)}" in page
    assert f"luck-adjusted mean (score − luck) {seat.score - seat.luck:.2f}" in page


def test_bot_user_and_my_bots_pages_show_the_rating_the_leaderboard_ranks_by(owner, ladder, ready_bot):
    # One rating everywhere: the batch rating with its interval once the ladder is fitted (Elo before).
    bots = [ready_bot(name) for name in ("alpha", "bravo", "charlie")]
    for value, bot in zip((1400.0, 1600.0, 1500.0), bots):
        Rating.objects.update_or_create(ladder=ladder, bot=bot, defaults={
            "elo": 1202.0, "games": 30, "batch_rating": value, "batch_low": value - 46, "batch_high": value + 46,
            "batch_provisional": False})
    type(ladder).objects.filter(pk=ladder.pk).update(batch_fitted_at=timezone.now())
    client = Client()
    client.force_login(owner)
    page = client.get(f"/bots/{bots[2].pk}/").content.decode()
    assert "1500 ± 46" in page and "rank 2 of 3" in page and "Elo 1202" in page
    for url in (f"/users/{owner.username}/", "/bots/mine/"):
        assert "1500 ± 46" in client.get(url).content.decode(), url
