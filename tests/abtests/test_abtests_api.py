"""/api/abtests/: start, read and stop A/B tests; who may do what."""

from __future__ import annotations

from django.test import Client

from arena.abtests.models import ABTest
from arena.abtests.services import abtest_advance
from arena.matches.models import Match
from tests.abtests.conftest import play_queued, play_to_end
from tests.api.helpers import client_as

CONTRACT = {"games", "pairs", "a_mean_score", "b_mean_score", "elo", "elo_ci", "llr", "bounds", "verdict", "status"}


def body(versions, **changes) -> dict:
    data = {"game": versions["game"], "num_players": 2, "a": versions["old"].pk, "b": versions["new"].pk,
            "elo0": 0, "elo1": 10, "max_games": 200}
    data.update(changes)
    return data


def test_an_owner_starts_a_test_and_reads_it_to_its_verdict(owner, versions):
    client = client_as(owner)
    response = client.post("/api/abtests/", body(versions), format="json")
    assert response.status_code == 201, response.json()
    created = response.json()
    assert CONTRACT <= set(created) and created["status"] == "queued" and created["verdict"] == "undecided"
    assert created["games"] == 0 and created["bounds"] == [-2.9957, 2.9957]
    test = ABTest.objects.get(pk=created["id"])
    play_to_end(test, 20)
    detail = client.get(f"/api/abtests/{test.pk}/").json()
    assert detail["status"] == "finished" and detail["verdict"] == "H1"
    assert detail["games"] == 2 * detail["pairs"] >= 20 and detail["elo_ci"][0] <= detail["elo"]
    assert len(detail["history"]) == detail["pairs"]
    assert [t["id"] for t in client.get("/api/abtests/").json()] == [test.pk]


def test_nobody_else_sees_or_stops_a_test_but_staff(owner, other_user, staff, versions, anonymous):
    test_id = client_as(owner).post("/api/abtests/", body(versions), format="json").json()["id"]
    assert client_as(other_user).get(f"/api/abtests/{test_id}/").status_code == 404
    assert client_as(other_user).post(f"/api/abtests/{test_id}/stop/").status_code == 404
    assert client_as(other_user).get("/api/abtests/").json() == []
    assert client_as(anonymous).get(f"/api/abtests/{test_id}/").status_code == 401
    assert client_as(anonymous).post("/api/abtests/", body(versions), format="json").status_code == 401
    assert client_as(staff).get(f"/api/abtests/{test_id}/").status_code == 200
    assert ABTest.objects.get(pk=test_id).status == "queued"
    stopped = client_as(owner).post(f"/api/abtests/{test_id}/stop/")
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
    again = client_as(owner).post(f"/api/abtests/{test_id}/stop/")
    assert again.status_code == 400 and "already stopped" in str(again.json())


def test_nobody_uses_versions_they_may_not(owner, other_user, versions):
    # bob cannot make alice's version his candidate, nor test against alice's old (inactive) version.
    response = client_as(other_user).post("/api/abtests/", body(versions, b=versions["bravo"].pk, a=versions["old"].pk),
                                          format="json")
    assert response.status_code == 403 and "active version" in response.json()["detail"]
    response = client_as(other_user).post("/api/abtests/", body(versions), format="json")
    assert response.status_code == 403 and "one of your bots" in response.json()["detail"]
    assert not ABTest.objects.exists()


def test_bad_input_is_a_400_naming_the_field_and_creates_nothing(owner, versions):
    client = client_as(owner)
    for changes, field in (({"a": 999999}, "a"), ({"elo1": -5}, "elo1"), ({"num_players": 5}, "num_players"),
                           ({"num_players": 3}, "opponents"), ({"opponents": [versions["bravo"].pk]}, "opponents"),
                           ({"num_players": 3, "opponents": [999999]}, "opponents"),
                           ({"num_players": 3, "opponents": [versions["new"].pk]}, "opponents"),
                           ({"max_games": 3}, "max_games"), ({"game": "chess"}, "game"), ({"seed": 4}, "seed"),
                           ({"b": versions["old"].pk}, "b")):
        response = client.post("/api/abtests/", body(versions, **changes), format="json")
        assert response.status_code == 400, (changes, response.json())
        assert field in response.json(), (changes, response.json())
    assert not ABTest.objects.exists() and not Match.objects.filter(kind="abtest").exists()


def test_the_limit_of_tests_at_once_is_a_429_saying_so(owner, versions, settings):
    settings.ABTESTS_AT_ONCE = 1
    client = client_as(owner)
    assert client.post("/api/abtests/", body(versions), format="json").status_code == 201
    response = client.post("/api/abtests/", body(versions), format="json")
    assert response.status_code == 429 and "At most 1 A/B tests at once" in response.json()["detail"]


def test_the_seeds_of_a_tests_games_stay_hidden_until_the_test_ends(owner, versions):
    client = client_as(owner)
    test = ABTest.objects.get(pk=client.post("/api/abtests/", body(versions), format="json").json()["id"])
    abtest_advance(test_id=test.pk)
    play_queued(test)
    abtest_advance(test_id=test.pk)          # the next pairs are queued: the test goes on
    done = Match.objects.filter(kind="abtest", status="done").order_by("id").first()
    assert done.group.chance_set == f"abtest:{test.pk}"
    assert client.get(f"/api/matches/{done.pk}/").json()["seed"] is None
    client.post(f"/api/abtests/{test.pk}/stop/")
    assert client.get(f"/api/matches/{done.pk}/").json()["seed"] == done.seed


def test_a_test_at_three_seats_names_its_opponent_and_reaches_a_verdict(owner, versions):
    client = client_as(owner)
    response = client.post("/api/abtests/", body(versions, num_players=3, opponents=[versions["bravo"].pk]),
                           format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["opponents"] == [versions["bravo"].pk] and response.json()["num_players"] == 3
    test = ABTest.objects.get(pk=response.json()["id"])
    play_to_end(test, 30)
    detail = client.get(f"/api/abtests/{test.pk}/").json()
    assert detail["status"] == "finished" and detail["verdict"] == "H1"
    assert all(m.seats.count() == 3 for m in Match.objects.filter(kind="abtest"))
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/abtests/{test.pk}/").content.decode()
    assert 'id="abtest-opponents"' in page and versions["bravo"].label in page
