"""A/B test pages: the bot page lists and starts tests, the test page draws and states, the owner stops."""

from __future__ import annotations

import json

from django.test import Client

from arena.abtests.models import ABTest
from arena.abtests.services import abtest_advance, abtest_create
from arena.matches.models import Match
from tests.abtests.conftest import play_queued, play_to_end


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_owner_starts_a_test_from_the_bot_page_and_follows_it_to_its_verdict(owner, versions):
    client = signed_in(owner)
    page = client.get(f"/bots/{versions['new'].bot_id}/").content.decode()
    assert 'id="abtest-form"' in page and "No A/B test yet." in page
    response = client.post(f"/bots/{versions['new'].bot_id}/abtest/",
                           {"a": versions["old"].pk, "b": versions["new"].pk, "elo0": "0", "elo1": "10"})
    test = ABTest.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/abtests/{test.pk}/"
    play_to_end(test, 20)
    page = client.get(f"/abtests/{test.pk}/").content.decode()
    assert 'data-verdict="H1"' in page and "B is stronger" in page and "Stop the test" not in page
    assert 'data-abtest-chart="llr"' in page and "uPlot.iife.min.js" in page
    chart = json.loads(page.split('<script id="abtest-chart" type="application/json">')[1].split("</script>")[0])
    assert len(chart["games"]) == len(chart["llr"]) == len(test.history) and chart["bounds"][1] > 0
    listing = client.get(f"/bots/{versions['new'].bot_id}/").content.decode()
    assert f'data-abtest="{test.pk}"' in listing


def test_the_page_counts_one_pair_in_the_singular(owner, versions, settings):
    settings.ABTEST_PAIRS_IN_FLIGHT = 1
    test = abtest_create(by=owner, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    abtest_advance(test_id=test.pk)
    assert play_queued(test) == 2
    abtest_advance(test_id=test.pk)
    page = signed_in(owner).get(f"/abtests/{test.pk}/").content.decode()
    assert "2 (1 pair) of at most" in page


def test_an_ab_test_games_page_names_its_test_linked_for_the_owner_only(owner, other_user, versions):
    test = abtest_create(by=owner, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    abtest_advance(test_id=test.pk)
    game = Match.objects.filter(group__abtest_pair__test=test, group__abtest_pair__number=0).first()
    mine = signed_in(owner).get(f"/matches/{game.pk}/").content.decode()
    assert f'A/B test game (unrated): <a href="/abtests/{test.pk}/">A/B test #{test.pk}</a>, pair 1' in mine
    assert "challenge" not in mine
    theirs = signed_in(other_user).get(f"/matches/{game.pk}/").content.decode()
    assert f"A/B test game (unrated): A/B test #{test.pk}, pair 1" in theirs and f"/abtests/{test.pk}/" not in theirs


def test_a_bad_start_says_why_and_creates_nothing(owner, versions):
    client = signed_in(owner)
    response = client.post(f"/bots/{versions['new'].bot_id}/abtest/",
                           {"a": versions["new"].pk, "b": versions["new"].pk}, follow=True)
    assert "A/B test: Versions A and B (a and b) are the same version: pick two different versions." in response.content.decode()
    assert not ABTest.objects.exists()


def test_only_the_owner_and_staff_see_or_stop_a_test(owner, other_user, staff, versions):
    test = abtest_create(by=owner, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    assert signed_in(other_user).get(f"/abtests/{test.pk}/").status_code == 404
    assert signed_in(other_user).post(f"/abtests/{test.pk}/stop/").status_code == 404
    assert Client().get(f"/abtests/{test.pk}/").status_code == 302          # to the sign-in page
    assert signed_in(staff).get(f"/abtests/{test.pk}/").status_code == 200
    other_page = signed_in(other_user).get(f"/bots/{versions['new'].bot_id}/").content.decode()
    assert 'id="abtest-form"' not in other_page and f'data-abtest="{test.pk}"' not in other_page
    assert signed_in(other_user).post(f"/bots/{versions['new'].bot_id}/abtest/",
                                      {"a": versions["old"].pk, "b": versions["new"].pk}).status_code == 403
    client = signed_in(owner)
    assert "Stop the test" in client.get(f"/abtests/{test.pk}/").content.decode()
    client.post(f"/abtests/{test.pk}/stop/")
    test.refresh_from_db()
    assert test.status == "stopped"


def test_the_live_token_of_a_test_answers_only_its_owner_and_staff(owner, other_user, staff, versions):
    test = abtest_create(by=owner, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    url = f"/live/abtest/{test.pk}/"
    for user, status in ((owner, 200), (staff, 200), (other_user, 404), (None, 404)):
        client = Client()
        if user is not None:
            client.force_login(user)
        assert client.get(url).status_code == status
    client = Client()
    client.force_login(owner)
    before = client.get(url).json()
    assert before["final"] is False
    abtest_advance(test_id=test.pk)
    play_queued(test)
    abtest_advance(test_id=test.pk)
    after = client.get(url).json()
    assert after["token"] != before["token"] and after["final"] is False
    assert Client().get("/live/abtest/0/").status_code == 404 and client.get("/live/abtest/x/").status_code == 404


def test_the_bot_page_starts_a_test_at_three_seats_with_an_opponent_and_refuses_a_missing_one(owner, versions):
    client = signed_in(owner)
    start = f"/bots/{versions['new'].bot_id}/abtest/"
    form = {"a": versions["old"].pk, "b": versions["new"].pk, "num_players": "3"}
    refused = client.post(start, form, follow=True).content.decode()
    assert "needs 1 opponent version(s)" in refused and not ABTest.objects.exists()
    refused = client.post(start, {**form, "opponents": ["99999999999999999999"]}, follow=True).content.decode()
    assert "choose both versions" in refused and not ABTest.objects.exists()
    response = client.post(start, {**form, "opponents": [versions["bravo"].pk]})
    test = ABTest.objects.get()
    assert response.status_code == 302 and test.num_players == 3 and test.opponents == [versions["bravo"].pk]
    page = client.get(f"/bots/{versions['new'].bot_id}/").content.decode()
    assert 'id="abtest-opponents"' in page and 'name="num_players"' in page
