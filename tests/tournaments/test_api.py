"""The tournament API: create (validated like the admin), detail, standings, rounds, matches."""

from __future__ import annotations

import pytest

from arena.tournaments.models import Tournament
from arena.tournaments.services import tournament_create, tournament_start, tournaments_tick
from tests.api.helpers import client_as
from tests.tournaments.conftest import DSA, play_open_games

pytestmark = pytest.mark.django_db


def test_staff_create_a_tournament_and_bad_input_names_its_field(six_bots, staff):
    api = client_as(staff)
    base = {"name": "API cup", "game": DSA, "seat_count": 3, "format": "swiss", "rounds": 2,
            "bots": [b.pk for b in six_bots]}
    bad = api.post("/api/tournaments/", base | {"rounds": 0}, format="json")
    assert bad.status_code == 400 and "at least one round" in bad.json()["rounds"][0]
    bad = api.post("/api/tournaments/", base | {"bots": [b.pk for b in six_bots[:2]]}, format="json")
    assert bad.status_code == 400 and "cannot fill one table" in bad.json()["bots"][0]
    bad = api.post("/api/tournaments/", base | {"format": "elimination", "advance": 3}, format="json")
    assert bad.status_code == 400 and "m < k" in bad.json()["advance"][0]
    assert not Tournament.objects.exists()
    made = api.post("/api/tournaments/", base, format="json")
    assert made.status_code == 201
    body = made.json()
    assert body["slug"] == "api-cup" and body["status"] == "scheduled" and body["points"] == [2.0, 1.0, 0.0]
    assert sorted(e["name"] for e in body["entrants"]) == [f"t{i}" for i in range(6)]


def test_standings_rounds_and_matches_follow_the_tournament(six_bots, anonymous):
    t = tournament_create(name="Read cup", game=DSA, seat_count=3, format="swiss", rounds=1, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    api = client_as(anonymous)
    rounds = api.get("/api/tournaments/read-cup/rounds/").json()
    assert len(rounds) == 1 and len(rounds[0]["tables"]) == 2
    assert rounds[0]["seed"] is None  # private while its games are to be played
    assert all(len(table["matches"]) == 3 for table in rounds[0]["tables"])
    page = api.get("/api/tournaments/read-cup/matches/?page_size=4").json()
    assert len(page["results"]) == 4 and page["next"] and all(m["kind"] == "tournament" for m in page["results"])
    rest = api.get(page["next"]).json()
    assert len(rest["results"]) == 2
    play_open_games()
    tournaments_tick()
    standings = api.get("/api/tournaments/read-cup/standings/").json()
    assert standings["final"] is True
    assert api.get("/api/tournaments/read-cup/rounds/").json()[0]["seed"] == t.round_set.get().seed
    assert standings["progress"]["matches_done"] == standings["progress"]["matches_total"] == 6
    rows = standings["results"]
    assert [r["position"] for r in rows] == sorted(r["position"] for r in rows) and len(rows) == 6
    assert {"points", "games", "mean_rank", "faults", "buchholz", "score", "head_to_head"} <= set(rows[0])


def test_the_tournament_endpoints_are_in_the_openapi_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for path in ("/api/tournaments/", "/api/tournaments/{slug}/", "/api/tournaments/{slug}/standings/",
                 "/api/tournaments/{slug}/rounds/", "/api/tournaments/{slug}/matches/",
                 "/api/tournaments/{slug}/start/", "/api/tournaments/{slug}/rerun/"):
        assert path in paths, path
    assert "post" in paths["/api/tournaments/"]


@pytest.mark.parametrize("status", ["", "bogus"])
def test_a_tournament_list_filtered_by_no_status_is_refused(db, status):
    response = client_as(None).get(f"/api/tournaments/?status={status}")
    assert response.status_code == 400 and "status" in response.json()
    assert client_as(None).get("/api/tournaments/?status=running").status_code == 200
