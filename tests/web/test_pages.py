"""The pages: status, key content, and logs only for the bot's owner and staff."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.test import Client

from engines import list_games
from tests.conftest import PASSWORD


@pytest.fixture
def as_role(request):
    def make(role: str) -> Client:
        client = Client()
        user = request.getfixturevalue(role)
        if user.is_authenticated:
            client.force_login(user)
        return client
    return make


def _text(response) -> str:
    return response.content.decode()


def test_the_home_page_lists_games_ladders_and_finished_matches(arena):
    page = _text(Client().get("/"))
    for game in list_games():
        assert game.title in page
    assert "Duel ladder" in page
    assert f"/matches/{arena['played'].pk}/" in page


def test_the_games_page_lists_every_game_with_its_players(db):
    page = _text(Client().get("/games/"))
    for game in list_games():
        assert game.title in page and f"{game.min_players}-{game.max_players}" in page


def test_a_game_page_shows_the_rules_as_html(db, two_player_game):
    response = Client().get(f"/games/{two_player_game}/")
    assert response.status_code == 200
    assert f"Game id: <code>{two_player_game}</code>" in _text(response)  # from docs/rules/<id>.md


def test_an_unknown_game_page_is_404(db):
    assert Client().get("/games/chess/").status_code == 404


def test_the_ladders_page_lists_the_active_ladders(arena):
    page = _text(Client().get("/ladders/"))
    assert "Duel ladder" in page and "/ladders/duel/" in page


def test_a_ladder_page_shows_the_leaderboard_best_first(arena):
    page = _text(Client().get("/ladders/duel/"))
    assert page.index("bravo") < page.index("alpha")
    bravo_elo = arena["bravo"].ratings.get().elo
    assert f"{bravo_elo:.0f}" in page


def test_an_unknown_ladder_page_is_404(db):
    assert Client().get("/ladders/nowhere/").status_code == 404


@pytest.mark.parametrize("role,sees", [("owner", True), ("other_user", False), ("staff", True), ("anonymous", False)])
def test_a_bot_page_shows_its_logs_only_to_the_owner_and_staff(arena, as_role, role, sees):
    response = as_role(role).get(f"/bots/{arena['alpha'].pk}/")
    assert response.status_code == 200
    page = _text(response)
    assert "v1" in page and "ready" in page and "Duel ladder" in page
    assert f"/matches/{arena['played'].pk}/" in page
    assert ("stderr line of seat 0" in page) == sees
    assert ("alpha secret stderr" in page) == sees
    assert ("Smoke test passed" in page) == sees
    assert ("Upload a new version" in page) == sees


def test_an_unknown_bot_page_is_404(db):
    assert Client().get("/bots/999/").status_code == 404


@pytest.mark.parametrize("role,sees_seat0,sees_seat1", [
    ("owner", True, False), ("other_user", False, True), ("staff", True, True), ("anonymous", False, False)])
def test_a_match_page_shows_each_seats_log_only_to_its_owner_and_staff(arena, as_role, role, sees_seat0, sees_seat1):
    response = as_role(role).get(f"/matches/{arena['played'].pk}/")
    assert response.status_code == 200
    page = _text(response)
    assert "alpha" in page and "bravo" in page and "timeout" in page and "at step 4" in page
    assert "7.5" in page  # p95 ms
    assert f"/matches/{arena['played'].pk}/replay.json" in page
    assert ("stderr line of seat 0" in page) == sees_seat0
    assert ("alpha secret stderr" in page) == sees_seat0
    assert ("stderr line of seat 1" in page) == sees_seat1


@pytest.mark.parametrize("role,expected", [("owner", 200), ("other_user", 403), ("staff", 200), ("anonymous", 302)])
def test_the_raw_log_of_a_seat_is_for_its_owner_and_staff(arena, as_role, role, expected):
    response = as_role(role).get(f"/matches/{arena['played'].pk}/logs/0/")
    assert response.status_code == expected
    if expected == 200:
        assert _text(response) == "stderr line of seat 0"
    if expected == 302:
        assert response["Location"].startswith("/accounts/login/")


def test_a_match_page_with_a_replay_loads_the_viewer_on_its_full_form(arena):
    page = _text(Client().get(f"/matches/{arena['played'].pk}/"))
    assert f'data-url="/matches/{arena["played"].pk}/replay.full.json"' in page
    for script in ("core.js", "player.js", "controls.js", "timeline.js", "log.js", "boot.js", "games/deep_sea_adventure.js", "games/dive.js"):
        assert f"/static/arena/viewer/{script}" in page
    assert 'id="replay-legend"' in page
    assert "replay-viewer" not in _text(Client().get(f"/matches/{arena['queued'].pk}/"))


def test_a_match_page_gives_its_times_as_the_other_pages_do(arena):
    from arena.matches.models import Match

    played = arena["played"]
    Match.objects.filter(pk=played.pk).update(queued_at=datetime(2026, 12, 1, 20, 14, 5, tzinfo=UTC),
                                              started_at=datetime(2026, 12, 1, 20, 14, 6, tzinfo=UTC),
                                              finished_at=datetime(2026, 12, 1, 20, 16, 7, tzinfo=UTC))
    page = _text(Client().get(f"/matches/{played.pk}/"))
    for shown in ("2026-12-01 20:14:05", "2026-12-01 20:14:06", "2026-12-01 20:16:07"):
        assert shown in page
    assert "p.m." not in page
    queued = _text(Client().get(f"/matches/{arena['queued'].pk}/"))
    assert "<th>Started</th><td></td>" in queued.replace(" ", "")


def test_the_replay_downloads_from_the_match_page(arena):
    response = Client().get(f"/matches/{arena['played'].pk}/replay.json")
    assert response.status_code == 200
    assert json.loads(response.content)["steps"] == [1, 2, 3]
    assert Client().get(f"/matches/{arena['queued'].pk}/replay.json").status_code == 404


def test_the_matches_page_filters_by_status(arena):
    page = _text(Client().get("/matches/?status=queued"))
    assert f"/matches/{arena['queued'].pk}/" in page
    assert f"/matches/{arena['played'].pk}/" not in page


def test_my_bots_lists_only_my_bots(arena, as_role):
    page = _text(as_role("owner").get("/bots/mine/"))
    assert "alpha" in page and "bravo" not in page


def test_my_bots_asks_an_anonymous_visitor_to_log_in(db):
    response = Client().get("/bots/mine/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_visitor_signs_up_and_is_logged_in(db):
    client = Client()
    response = client.post("/signup/", {"username": "dave", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert client.get("/bots/mine/").status_code == 200


def test_sign_up_explains_a_password_mismatch(db):
    response = Client().post("/signup/", {"username": "dave", "password1": PASSWORD, "password2": "other"})
    assert response.status_code == 200
    assert "didn’t match" in _text(response) or "didn't match" in _text(response)


def test_a_user_logs_in_and_out(owner):
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert "Log out" in _text(client.get("/"))
    client.post("/accounts/logout/")
    assert "Log in" in _text(client.get("/"))


def test_the_login_page_rejects_a_wrong_password(owner):
    response = Client().post("/accounts/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in _text(response)


@pytest.mark.parametrize("role,full", [("owner", False), ("anonymous", False), ("staff", True)])
def test_a_failed_match_page_says_why_but_shows_the_worker_traceback_to_staff_only(arena, as_role, role, full):
    from arena.matches.models import Match

    traceback = ('Traceback (most recent call last):\n  File "/srv/arena/arena/matches/tasks.py", line 70\n'
                 'RuntimeError: not every seat could be started\n')
    Match.objects.filter(pk=arena["queued"].pk).update(status="failed", error=traceback)
    page = _text(as_role(role).get(f"/matches/{arena['queued'].pk}/"))
    assert "RuntimeError: not every seat could be started" in page
    assert ("/srv/arena/arena/matches/tasks.py" in page) == full


def test_every_page_names_the_site_icon_and_favicon_ico_leads_to_it(db):
    # Without an icon each page made the browser fetch /favicon.ico, a 404 in its console.
    page = _text(Client().get("/"))
    assert 'rel="icon" href="/static/arena/favicon.svg"' in page
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/arena/favicon.svg"


def test_game_options_are_shown_as_the_json_that_options_take_on_ladder_and_match_pages(ready_bot, owner):
    from arena.ladders.services import ladder_create
    from arena.matches.services import match_create

    ladder = ladder_create(slug="tiles", name="Tiles", game="divee", seat_count=2, options={"special_tiles": True})
    alpha, bravo = ready_bot("alpha", game="divee"), ready_bot("bravo", game="divee")
    match = match_create(game="divee", versions=[alpha.active_version, bravo.active_version],
                         options={"special_tiles": True}, ladder=ladder)
    for url in (f"/ladders/{ladder.slug}/", f"/matches/{match.pk}/"):
        page = Client().get(url).content.decode()
        assert "<code>{&quot;special_tiles&quot;: true}</code>" in page, url   # not Python's {'special_tiles': True}


def _record_two_seat_match(arena, *, faults, logs=("", "")):
    from arena.matches.services import match_create
    from arena.runs.recording import match_record_outcome
    from tests.factories import summary_outcome as _outcome

    ladder = arena["ladder"]
    match = match_create(game=ladder.game, versions=[arena["alpha"].active_version, arena["bravo"].active_version],
                         ladder=ladder)
    outcome = _outcome(ladder.game, 2, faults=faults)
    for seat, log in enumerate(logs):
        outcome["logs"][seat] = log
    match_record_outcome(match_id=match.pk, outcome=outcome, replay=None, worker="gpu-box-17.internal")
    return match


def test_the_fallback_note_is_shown_under_a_faulted_match_only(arena):
    faulted = _text(Client().get(f"/matches/{arena['played'].pk}/"))
    clean = _text(Client().get(f"/matches/{_record_two_seat_match(arena, faults=[]).pk}/"))
    assert 'data-role="fallback-note"' in faulted
    assert 'data-role="fallback-note"' not in clean and "built-in fallback" not in clean


@pytest.mark.parametrize("role,sees", [("owner", False), ("anonymous", False), ("other_user", False), ("staff", True)])
def test_the_match_page_names_the_workers_host_to_staff_only(arena, as_role, role, sees):
    match = _record_two_seat_match(arena, faults=[])
    assert ("gpu-box-17.internal" in _text(as_role(role).get(f"/matches/{match.pk}/"))) == sees


def test_a_faulted_seats_log_lines_are_printed_once_on_its_owners_match_page(arena, as_role):
    log = "thinking about step 1\nthinking about step 2\nTraceback: boom at the very end\n"
    message = "the bot exited with status 1\n--- last lines of the bot's log ---\nthinking about step 2\nTraceback: boom at the very end"
    match = _record_two_seat_match(arena, faults=[{"seat": 0, "kind": "crash", "step": 2, "message": message}],
                                   logs=(log, ""))
    page = _text(as_role("owner").get(f"/matches/{match.pk}/"))
    assert page.count("Traceback: boom at the very end") == 1
    assert "the bot exited with status 1" in page
    # Without a stored log the fault message is the only copy of those lines: printed whole.
    match = _record_two_seat_match(arena, faults=[{"seat": 0, "kind": "crash", "step": 2, "message": message}])
    page = _text(as_role("owner").get(f"/matches/{match.pk}/"))
    assert page.count("Traceback: boom at the very end") == 1 and "thinking about step 2" in page
