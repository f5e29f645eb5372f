"""Who may read and write what, endpoint by endpoint: owner, other user, staff, anonymous.

The arena fixture: alice (owner) has bot alpha in seat 0 of a played match; bob (other_user)
has bot bravo in seat 1; carol is staff.
"""

from __future__ import annotations

import pytest

from arena.bots.models import Bot, BotVersion
from arena.matches.models import Match
from tests.api.helpers import client_as

ROLES = ("owner", "other_user", "staff", "anonymous")
EVERYONE = {"owner": 200, "other_user": 200, "staff": 200, "anonymous": 200}

READ_ONLY_FOR_ALL = [
    "/api/",
    "/api/games/",
    "/api/games/{game}/",
    "/api/ladders/",
    "/api/ladders/duel/",
    "/api/ladders/duel/leaderboard/",
    "/api/bots/",
    "/api/bots/{alpha}/",
    "/api/bots/{alpha}/versions/",
    "/api/bots/{alpha}/history/",
    "/api/matches/",
    "/api/matches/{played}/",
    "/api/matches/{played}/replay/",
    "/api/schema/",
    "/api/docs/",
]


def _url(template: str, arena: dict) -> str:
    return template.format(game=arena["ladder"].game, alpha=arena["alpha"].pk, bravo=arena["bravo"].pk,
                           played=arena["played"].pk)


@pytest.fixture
def as_role(request):
    def make(role: str):
        return client_as(request.getfixturevalue(role))
    return make


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("template", READ_ONLY_FOR_ALL)
def test_everyone_may_read_the_public_endpoints(arena, as_role, role, template):
    response = as_role(role).get(_url(template, arena))
    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize("role,expected", [("owner", 200), ("other_user", 403), ("staff", 200), ("anonymous", 401)])
def test_only_the_owner_and_staff_may_read_the_log_of_alphas_seat(arena, as_role, role, expected):
    response = as_role(role).get(f"/api/matches/{arena['played'].pk}/logs/0/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["log"] == "stderr line of seat 0"
    else:
        assert "stderr" not in response.content.decode()


@pytest.mark.parametrize("role,sees_log", [("owner", True), ("other_user", False), ("staff", True), ("anonymous", False)])
def test_everyone_may_read_one_version_but_only_the_owner_and_staff_its_log(arena, as_role, role, sees_log):
    version = arena["alpha"].active_version
    BotVersion.objects.filter(pk=version.pk).update(validation_log="alpha smoke-test secret")
    response = as_role(role).get(f"/api/bots/{arena['alpha'].pk}/versions/{version.number}/")
    assert response.status_code == 200
    assert response.json()["number"] == version.number
    assert (response.json()["validation_log"] == "alpha smoke-test secret") == sees_log
    assert ("alpha smoke-test secret" in response.content.decode()) == sees_log


@pytest.mark.parametrize("role,expected", [("owner", 403), ("other_user", 200), ("staff", 200), ("anonymous", 401)])
def test_only_bravos_owner_and_staff_may_read_the_log_of_bravos_seat(arena, as_role, role, expected):
    response = as_role(role).get(f"/api/matches/{arena['played'].pk}/logs/1/")
    assert response.status_code == expected


@pytest.mark.parametrize("role,expected", [("owner", 201), ("other_user", 201), ("staff", 201), ("anonymous", 401)])
def test_any_signed_in_user_may_create_a_bot_but_not_an_anonymous_visitor(
        arena, as_role, bot_upload, role, expected):
    response = as_role(role).post("/api/bots/", {"name": f"new-{role}", "game": arena["ladder"].game,
                                                 "file": bot_upload()}, format="multipart")
    assert response.status_code == expected
    assert Bot.objects.filter(name=f"new-{role}").exists() == (expected == 201)


@pytest.mark.parametrize("method", ["patch", "put"])
@pytest.mark.parametrize("role,expected", [("owner", 200), ("other_user", 403), ("staff", 200), ("anonymous", 401)])
def test_only_the_owner_and_staff_may_change_a_bot(arena, as_role, role, expected, method):
    alpha = arena["alpha"]
    response = getattr(as_role(role), method)(f"/api/bots/{alpha.pk}/", {"description": f"by {role}"},
                                               format="json")
    assert response.status_code == expected
    alpha.refresh_from_db()
    assert (alpha.description == f"by {role}") == (expected == 200)


@pytest.mark.parametrize("role,expected", [("owner", 201), ("other_user", 403), ("staff", 201), ("anonymous", 401)])
def test_only_the_owner_and_staff_may_upload_a_new_version(arena, as_role, bot_upload, role, expected):
    alpha = arena["alpha"]
    response = as_role(role).post(f"/api/bots/{alpha.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert response.status_code == expected
    assert BotVersion.objects.filter(bot=alpha).count() == (2 if expected == 201 else 1)


@pytest.mark.parametrize("role,expected", [("owner", 405), ("other_user", 405), ("staff", 405), ("anonymous", 401)])
def test_nobody_deletes_a_bot_through_the_api(arena, as_role, role, expected):
    response = as_role(role).delete(f"/api/bots/{arena['alpha'].pk}/")
    assert response.status_code == expected
    assert Bot.objects.filter(pk=arena["alpha"].pk).exists()


@pytest.mark.parametrize("template", ["/api/ladders/", "/api/matches/", "/api/games/"])
@pytest.mark.parametrize("role,expected", [("owner", 405), ("other_user", 405), ("staff", 405), ("anonymous", 401)])
def test_nobody_writes_ladders_matches_or_games_through_the_api(arena, as_role, role, expected, template):
    response = as_role(role).post(template, {}, format="json")
    assert response.status_code == expected


@pytest.mark.parametrize("role,expected", [("owner", 405), ("other_user", 405), ("staff", 405), ("anonymous", 401)])
def test_nobody_changes_a_match_through_the_api(arena, as_role, role, expected):
    response = as_role(role).patch(f"/api/matches/{arena['played'].pk}/", {"status": "failed"}, format="json")
    assert response.status_code == expected
    arena["played"].refresh_from_db()
    assert arena["played"].status == Match.Status.DONE


@pytest.mark.parametrize("role,expected", [("owner", 200), ("other_user", 200), ("staff", 200), ("anonymous", 401)])
def test_the_challenge_list_needs_a_signed_in_user(arena, as_role, role, expected):
    assert as_role(role).get("/api/challenges/").status_code == expected


@pytest.mark.parametrize("role,expected", [("owner", 201), ("other_user", 403), ("staff", 201), ("anonymous", 401)])
def test_only_the_owner_and_staff_may_challenge_with_a_bot(arena, as_role, role, expected):
    payload = {"bot": arena["alpha"].pk, "opponents": [arena["bravo"].pk]}
    response = as_role(role).post("/api/challenges/", payload, format="json")
    assert response.status_code == expected
    assert Match.objects.filter(kind=Match.Kind.CHALLENGE).count() == (1 if expected == 201 else 0)


@pytest.mark.parametrize("role", ROLES)
def test_anyone_may_ask_for_a_token_with_a_username_and_password(arena, as_role, role):
    from tests.conftest import PASSWORD

    response = as_role(role).post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert response.json()["token"]


@pytest.mark.parametrize("role,sees", [("owner", True), ("other_user", False), ("staff", True), ("anonymous", False)])
def test_the_smoke_test_log_of_a_version_is_shown_to_the_owner_and_staff_only(arena, as_role, role, sees):
    response = as_role(role).get(f"/api/bots/{arena['alpha'].pk}/versions/")
    log = response.json()["results"][0]["validation_log"]
    assert (log is not None and "Smoke test passed" in log) == sees


@pytest.mark.parametrize("role,sees", [("owner", True), ("other_user", False), ("staff", True), ("anonymous", False)])
def test_a_fault_message_quoting_stderr_is_shown_to_the_owner_and_staff_only(arena, as_role, role, sees):
    response = as_role(role).get(f"/api/matches/{arena['played'].pk}/")
    seat0 = response.json()["seats"][0]
    assert seat0["fault"]["kind"] == "timeout"
    assert seat0["fault"]["step"] == 4
    assert ("alpha secret stderr" in response.content.decode()) == sees
    assert seat0["has_log"] == sees


@pytest.mark.parametrize("role", ROLES)
def test_everyone_may_read_the_full_replay_of_a_finished_match_and_no_seats_stderr_is_in_it(
        replayed_match, as_role, role):
    response = as_role(role).get(f"/api/matches/{replayed_match.pk}/replay/full/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "the bot exited" in body and "secret stderr" not in body


@pytest.mark.parametrize("role", ROLES)
def test_everyone_may_compare_two_bots_of_a_ladder(arena, as_role, role):
    response = as_role(role).get(f"/api/ladders/duel/compare/?a={arena['alpha'].pk}&b={arena['bravo'].pk}")
    assert response.status_code == 200 and response.json()["games"] == 1


# The writes and private reads (and reads with required parameters) the tests above check, as
# (schema path, method).
CHECKED_ABOVE = {
    ("/api/ladders/{slug}/compare/", "get"),
    ("/api/matches/{id}/replay/full/", "get"),
    ("/api/matches/{id}/logs/{seat}/", "get"), ("/api/bots/", "post"), ("/api/bots/{id}/", "patch"),
    ("/api/bots/{id}/", "put"), ("/api/bots/{id}/versions/", "post"),
    ("/api/bots/{id}/versions/{number}/", "get"), ("/api/challenges/", "get"),
    ("/api/challenges/", "post"), ("/api/auth/token/", "post"),
    # A/B tests: tests/abtests/test_abtests_api.py (the owner and staff only; 404 for anyone else;
    # nobody uses versions they may not). Notifications: tests/api/test_notifications_api.py (one's
    # own feed, count, marks and settings only; anonymous refused).
    ("/api/abtests/", "get"), ("/api/abtests/", "post"), ("/api/abtests/{id}/", "get"),
    ("/api/abtests/{id}/stop/", "post"),
    ("/api/notifications/", "get"), ("/api/notifications/unread/", "get"), ("/api/notifications/read/", "post"),
    ("/api/notifications/settings/", "get"), ("/api/notifications/settings/", "patch"),
    # Tournaments: the tests below this set.
    ("/api/tournaments/", "get"), ("/api/tournaments/", "post"), ("/api/tournaments/{slug}/", "get"),
    *((f"/api/tournaments/{{slug}}/{part}/", "get") for part in ("standings", "rounds", "matches")),
    *((f"/api/tournaments/{{slug}}/{action}/", "post")
      for action in ("start", "pause", "resume", "cancel", "extend", "rerun")),
}


def test_the_matrix_covers_every_endpoint_and_method_of_the_schema(db):
    schema = client_as(None).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    published = {(path, method) for path, operations in schema["paths"].items()
                 for method in operations if method in ("get", "post", "put", "patch", "delete")}
    reads = {(template.replace("{alpha}", "{id}").replace("{played}", "{id}").replace("{game}", "{id}")
              .replace("/duel/", "/{slug}/"), "get") for template in READ_ONLY_FOR_ALL}
    missing = published - reads - CHECKED_ABOVE
    assert not missing, f"endpoints without an authorization test: {sorted(missing)}"


# --- tournaments: everyone reads, only staff create and act ------------------------------------------

@pytest.fixture
def cup(arena):
    from arena.tournaments.services import tournament_create

    return tournament_create(name="Duel cup", slug="duel-cup", game=arena["ladder"].game, seat_count=2,
                             format="swiss", rounds=1, bots=[arena["alpha"], arena["bravo"]])


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("suffix", ["", "duel-cup/", "duel-cup/standings/", "duel-cup/rounds/", "duel-cup/matches/"])
def test_everyone_may_read_the_tournament_endpoints(cup, as_role, role, suffix):
    response = as_role(role).get(f"/api/tournaments/{suffix}")
    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize("role,expected", [("owner", 403), ("other_user", 403), ("staff", 201), ("anonymous", 401)])
def test_only_staff_may_create_a_tournament_through_the_api(arena, as_role, role, expected):
    from arena.tournaments.models import Tournament

    payload = {"name": f"Cup of {role}", "game": arena["ladder"].game, "seat_count": 2, "format": "swiss",
               "rounds": 1, "bots": [arena["alpha"].pk, arena["bravo"].pk]}
    response = as_role(role).post("/api/tournaments/", payload, format="json")
    assert response.status_code == expected, response.content[:300]
    assert Tournament.objects.filter(name=f"Cup of {role}").exists() == (expected == 201)


@pytest.mark.parametrize("action", ["start", "pause", "resume", "cancel", "extend", "rerun"])
@pytest.mark.parametrize("role,expected", [("owner", 403), ("other_user", 403), ("anonymous", 401)])
def test_only_staff_may_act_on_a_tournament_through_the_api(cup, as_role, role, expected, action):
    response = as_role(role).post(f"/api/tournaments/duel-cup/{action}/", {"round": 1}, format="json")
    assert response.status_code == expected
    cup.refresh_from_db()
    assert cup.status == "scheduled" and cup.rounds == 1


@pytest.mark.parametrize("role,expected", [("owner", 403), ("other_user", 403), ("staff", 405), ("anonymous", 401)])
def test_nobody_changes_or_deletes_a_tournament_through_the_api(cup, as_role, role, expected):
    assert as_role(role).patch("/api/tournaments/duel-cup/", {"name": "x"}, format="json").status_code == expected
    assert as_role(role).delete("/api/tournaments/duel-cup/").status_code == expected
    cup.refresh_from_db()
    assert cup.name == "Duel cup"


def test_staff_start_a_tournament_and_an_illegal_transition_is_a_400(cup, as_role):
    staff = as_role("staff")
    assert staff.post("/api/tournaments/duel-cup/start/").json()["status"] == "running"
    response = staff.post("/api/tournaments/duel-cup/start/")
    assert response.status_code == 400 and "cannot start" in response.json()["detail"]
    response = staff.post("/api/tournaments/duel-cup/resume/")
    assert response.status_code == 400 and "cannot be resumed" in response.json()["detail"]
