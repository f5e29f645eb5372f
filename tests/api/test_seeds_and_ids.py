"""A match's seed is private until the match is done (it rebuilds every hidden card and die);
the requester of a challenge and staff see it earlier. Ids no row can have are 404 or 400."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.matches.models import Match
from tests.api.helpers import client_as

BIG = 2**63


@pytest.fixture
def as_role(request):
    def make(role: str):
        return client_as(request.getfixturevalue(role))
    return make


@pytest.mark.parametrize("status", ["queued", "running", "failed"])
@pytest.mark.parametrize("role,sees", [("owner", False), ("other_user", False), ("anonymous", False),
                                       ("staff", True)])
def test_the_seed_of_a_match_that_is_not_done_is_hidden_from_everyone_but_staff(arena, as_role, role, sees, status):
    match = arena["queued"]
    Match.objects.filter(pk=match.pk).update(status=status)
    client = as_role(role)
    detail = client.get(f"/api/matches/{match.pk}/").json()
    listed = next(m for m in client.get("/api/matches/").json()["results"] if m["id"] == match.pk)
    assert detail["seed"] == listed["seed"] == (match.seed if sees else None)
    assert (str(match.seed) in client.get(f"/api/matches/?status={status}").content.decode()) == sees


@pytest.mark.parametrize("role", ["owner", "other_user", "anonymous", "staff"])
def test_the_seed_of_a_done_match_is_public(arena, as_role, role):
    played = arena["played"]
    assert as_role(role).get(f"/api/matches/{played.pk}/").json()["seed"] == played.seed


def _browser(request, role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(request.getfixturevalue(role))
    return client


@pytest.mark.parametrize("role,sees", [("owner", True), ("other_user", False), ("anonymous", False),
                                       ("staff", True)])
def test_a_queued_challenge_shows_its_named_seed_to_its_requester_and_staff_only(arena, as_role, request, role,
                                                                                  sees):
    response = client_as(arena["alpha"].owner).post(
        "/api/challenges/", {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk], "seed": 123456789},
        format="json")
    assert response.status_code == 201 and response.json()["seed"] == 123456789
    challenge = response.json()["id"]
    client = as_role(role)
    assert client.get(f"/api/matches/{challenge}/").json()["seed"] == (123456789 if sees else None)
    assert ("123456789" in client.get("/api/matches/").content.decode()) == sees
    assert ("123456789" in _browser(request, role).get(f"/matches/{challenge}/").content.decode()) == sees


@pytest.mark.parametrize("role,sees", [("owner", False), ("other_user", False), ("anonymous", False),
                                       ("staff", True)])
def test_the_match_page_hides_the_seed_of_a_queued_match(arena, request, role, sees):
    client = _browser(request, role)
    queued = arena["queued"]
    assert (str(queued.seed) in client.get(f"/matches/{queued.pk}/").content.decode()) == sees
    assert str(arena["played"].seed) in client.get(f"/matches/{arena['played'].pk}/").content.decode()


def test_a_replay_is_only_served_once_its_match_is_done(arena):
    played = arena["played"]
    Match.objects.filter(pk=played.pk).update(status="running")  # e.g. sent to the queue again by staff
    assert client_as(None).get(f"/api/matches/{played.pk}/replay/").status_code == 404
    assert Client().get(f"/matches/{played.pk}/replay.json").status_code == 404
    assert client_as(None).get(f"/api/matches/{played.pk}/replay/full/").status_code == 404
    assert Client().get(f"/matches/{played.pk}/replay.full.json").status_code == 404
    assert client_as(None).get(f"/api/matches/{played.pk}/").json()["has_replay"] is False


@pytest.mark.parametrize("url", [
    f"/api/bots/{BIG}/", f"/api/bots/{BIG}/versions/", f"/api/bots/{BIG}/history/", f"/api/bots/{10**30}/",
    f"/api/matches/{BIG}/", f"/api/matches/{BIG}/replay/", f"/api/matches/{BIG}/logs/0/",
    "/api/matches/abc/replay/", "/api/matches/1e3/replay/", f"/api/matches/{BIG}/replay/full/",
    "/api/matches/abc/replay/full/", f"/matches/{BIG}/replay.full.json", "/api/bots/abc/", "/api/games/no-such-game/",
    f"/bots/{BIG}/", f"/matches/{BIG}/", f"/matches/{BIG}/replay.json",
])
def test_an_id_no_row_can_have_is_404_not_a_server_error(arena, owner, url):
    response = client_as(owner).get(url)
    assert response.status_code == 404
    if url.startswith("/api/"):
        assert response["Content-Type"] == "application/json"


def test_a_seat_number_no_seat_can_have_is_404(arena, owner):
    assert client_as(owner).get(f"/api/matches/{arena['played'].pk}/logs/{BIG}/").status_code == 404
    assert client_as(owner).get(f"/api/matches/{arena['played'].pk}/logs/x/").status_code == 404


@pytest.mark.parametrize("body,field", [({"bot": BIG}, "bot"), ({"bot": 1, "opponents": [BIG]}, "opponents"),
                                        ({"bot": 10**30}, "bot")])
def test_a_challenge_naming_a_bot_id_beyond_a_bigint_is_refused_with_400(arena, owner, body, field):
    response = client_as(owner).post("/api/challenges/", body, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Match.objects.filter(kind="challenge").exists()
