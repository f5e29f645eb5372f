"""The tournament pages: the list, a tournament's standings, rounds, games and bracket, and the links
to them from the home page, the game page and each entrant's bot page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from arena.matches.models import Match
from arena.tournaments.services import tournament_create, tournament_start, tournaments_tick
from tests.tournaments.conftest import DSA, play_open_games

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(six_bots):
    t = tournament_create(name="Page cup", game=DSA, seat_count=3, format="swiss", rounds=2, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    play_open_games()
    tournaments_tick()
    return t


def test_the_list_shows_running_scheduled_and_finished_tournaments(client, six_bots):
    tournament_create(name="Later cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots,
                      start_at=timezone.now() + timedelta(days=1))
    done = tournament_create(name="Done cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    tournament_start(tournament_id=done.pk)
    play_open_games()
    tournaments_tick()
    running_one = tournament_create(name="Page cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    tournament_start(tournament_id=running_one.pk)
    page = client.get(reverse("web:tournaments")).content.decode()
    running, scheduled, finished = (page.index('id="running"'), page.index('id="scheduled"'),
                                    page.index('id="finished"'))
    assert running < page.index("Page cup") < scheduled < page.index("Later cup") < finished < page.index("Done cup")


def test_a_tournament_page_shows_standings_progress_rounds_and_links_every_game(client, played):
    page = client.get(reverse("web:tournament_detail", args=[played.slug]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-done="6" data-total="12"' in html and "round 2 of 2" in html
    assert html.count("<tr data-entrant=") == 6
    for match in Match.objects.filter(group__tournament_table__round__tournament=played):
        assert reverse("web:match_detail", args=[match.pk]) in html
    assert 'data-round="1"' in html and 'data-round="2"' in html
    assert "replay" in html and "Buchholz" in html


def test_an_elimination_page_draws_its_bracket(client, make_bot):
    bots = [make_bot(f"e{i}", DSA) for i in range(9)]
    t = tournament_create(name="KO cup", game=DSA, seat_count=3, format="elimination", advance=1, bots=bots)
    tournament_start(tournament_id=t.pk)
    play_open_games()
    tournaments_tick()
    html = client.get(reverse("web:tournament_detail", args=[t.slug])).content.decode()
    assert 'id="bracket"' in html and html.count('class="bracket-table"') == 4 and "Final" in html


def test_home_game_and_bot_pages_link_the_tournament(client, played, six_bots):
    url = reverse("web:tournament_detail", args=[played.slug])
    assert url in client.get(reverse("web:home")).content.decode()
    assert url in client.get(reverse("web:game_detail", args=[DSA])).content.decode()
    bot_page = client.get(reverse("web:bot_detail", args=[six_bots[0].pk])).content.decode()
    assert url in bot_page and "kind=tournament" in bot_page
    assert '<span class="muted">tournament</span>' in bot_page  # its tournament games among its matches


def test_an_unknown_tournament_is_a_404(client, db):
    assert client.get(reverse("web:tournament_detail", args=["nope"])).status_code == 404


def test_a_faulted_game_links_to_the_step_of_its_fault_from_the_tournament_page(client, six_bots):
    from arena.runs.recording import match_record_outcome
    from tests.tournaments.conftest import clean_outcome

    t = tournament_create(name="Fault cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    games = list(Match.objects.filter(kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED).order_by("id"))
    faulted, rest = games[0], games[1:]
    culprit = faulted.seats.get(seat=1).bot_version.bot.name
    assert match_record_outcome(match_id=faulted.pk, outcome=clean_outcome(DSA, 3, [1, 3, 2], faults=[
        {"seat": 1, "kind": "timeout", "step": 7, "message": "no answer in time"}]))
    for match in rest:
        assert match_record_outcome(match_id=match.pk, outcome=clean_outcome(DSA, 3))
    html = client.get(reverse("web:tournament_detail", args=[t.slug])).content.decode()
    link = f'{reverse("web:match_detail", args=[faulted.pk])}#step=7&amp;pov=1'
    assert html.count('data-fault-step="7"') == 1 and link in html
    assert f"timeout fault ({culprit}) at step 7" in html
    assert html.count("data-fault-step=") == 1  # the clean games show none


def test_elimination_standings_are_ordered_by_the_columns_they_show(client, make_bot):
    import re

    bots = [make_bot(f"e{i}", DSA) for i in range(9)]
    t = tournament_create(name="KO order", game=DSA, seat_count=3, format="elimination", advance=1, bots=bots)
    tournament_start(tournament_id=t.pk)
    play_open_games()
    tournaments_tick()
    html = client.get(reverse("web:tournament_detail", args=[t.slug])).content.decode()
    assert "<th>Out in</th>" in html and "Last table" in html
    body = html[html.index('<table class="standings">'):html.index("</table>", html.index('<table class="standings">'))]
    rows = re.findall(r'<td>(round \d+|—)</td>\s*<td class="num" data-role="last-table">([^<]+)</td>', body)
    assert len(rows) == 9
    reached = [10**6 if out == "—" else int(out.split()[1]) for out, _ in rows]
    last = [float(v) if v != "—" else float("-inf") for _, v in rows]
    keys = list(zip(reached, last))
    assert keys == sorted(keys, reverse=True)   # the round reached, then the last table's result: best first


def test_an_entrant_sees_my_tables_and_games_and_others_do_not(client, make_bot, other_user):
    from django.test import Client

    mine = make_bot("mine", DSA)
    theirs = [make_bot(f"o{i}", DSA, user=other_user) for i in range(3)]
    t = tournament_create(name="Mine cup", game=DSA, seat_count=2, format="swiss", rounds=1, bots=[mine, *theirs])
    tournament_start(tournament_id=t.pk)
    owner_client = Client()
    owner_client.force_login(mine.owner)
    html = owner_client.get(reverse("web:tournament_detail", args=[t.slug])).content.decode()
    assert 'id="my-tables"' in html
    section = html[html.index('data-role="my-tables"'):html.index("</table>", html.index('data-role="my-tables"'))]
    assert section.count("<tr data-round=") == 1 and "<strong>mine</strong>" in section and "queued" in section
    match_ids = {int(m) for m in __import__("re").findall(r'data-match="(\d+)"', section)}
    from arena.matches.models import Match
    assert match_ids == set(Match.objects.filter(seats__bot_version__bot=mine, kind="tournament").values_list("pk", flat=True))
    assert 'id="my-tables"' not in client.get(reverse("web:tournament_detail", args=[t.slug])).content.decode()


def test_a_tournament_games_page_names_its_tournament_round_and_table_not_a_challenge(client, played):
    game = Match.objects.filter(kind=Match.Kind.TOURNAMENT).order_by("id").first()
    page = client.get(f"/matches/{game.pk}/").content.decode()
    assert "challenge" not in page
    assert ('tournament game (unrated): <a href="/tournaments/page-cup/">Page cup</a>, round 1, table 1'
            in page)
