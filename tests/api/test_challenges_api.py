"""/api/challenges/: unrated matches an owner asks for."""

from __future__ import annotations

from arena.matches.models import Match
from tests.api.helpers import client_as


def test_an_owner_challenges_another_bot_and_gets_an_unrated_queued_match(arena, owner):
    payload = {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk], "seed": 42}
    response = client_as(owner).post("/api/challenges/", payload, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["kind"], body["rated"], body["status"], body["seed"], body["ladder"]) == (
        "challenge", False, "queued", 42, None)
    assert [s["bot_name"] for s in body["seats"]] == ["alpha", "bravo"]
    assert body["requested_by"] == "alice"


def test_the_challenge_list_shows_only_my_challenges(arena, owner, other_user):
    client_as(owner).post("/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk]},
                          format="json")
    assert len(client_as(owner).get("/api/challenges/").json()["results"]) == 1
    assert client_as(other_user).get("/api/challenges/").json()["results"] == []


def test_it_rejects_a_bot_against_itself_and_creates_nothing(arena, owner):
    response = client_as(owner).post(
        "/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [arena["alpha"].pk]}, format="json")
    assert response.status_code == 400
    assert "against itself" in response.json()["opponents"][0]
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_rejects_an_opponent_listed_twice_saying_so(arena, owner):
    response = client_as(owner).post(
        "/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk] * 2}, format="json")
    assert response.status_code == 400
    assert response.json()["opponents"] == ["A bot takes one seat: bravo is listed more than once."]
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_rejects_an_unknown_opponent_by_id(arena, owner):
    response = client_as(owner).post("/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [999]},
                                     format="json")
    assert response.status_code == 400
    assert "No bot with id 999" in response.json()["opponents"][0]


def test_it_rejects_a_seat_count_the_game_does_not_take(arena, owner):
    response = client_as(owner).post("/api/challenges/", {"bot": arena["alpha"].pk, "opponents": []},
                                     format="json")
    assert response.status_code == 400
    assert "players" in response.json()["opponents"][0]


def test_it_rejects_unknown_options_with_the_engines_message(arena, owner):
    response = client_as(owner).post(
        "/api/challenges/",
        {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk], "options": {"no_such_option": 1}},
        format="json")
    assert response.status_code == 400
    assert "no_such_option" in response.json()["options"][0]
    assert not Match.objects.filter(kind="challenge").exists()


def test_it_refuses_a_challenge_over_the_hourly_limit_with_429(arena, owner, settings):
    settings.CHALLENGES_PER_HOUR = 1
    client = client_as(owner)
    payload = {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk]}
    assert client.post("/api/challenges/", payload, format="json").status_code == 201
    response = client.post("/api/challenges/", payload, format="json")
    assert response.status_code == 429
    assert response.json()["detail"].startswith("At most 1 challenge matches per hour: the next one is possible in")
    assert 3500 < int(response["Retry-After"]) <= 3601  # when the first one leaves the hour
    assert Match.objects.filter(kind="challenge").count() == 1
