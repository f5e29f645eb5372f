"""Smoke tests: one real sandboxed match of kind smoke per seat count of the ladders a version will
enter, in one group, on a seed drawn for that test (seat seeds derived from it as in ladder matches),
kept from the author until the smoke test has ended; played, leased and recovered by the one match
pipeline, and judged when the group has ended."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.bots.services import bot_create
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from arena.matches.models import Match
from arena.matches.selectors import match_list
from arena.matches.services import match_claim, match_requeue_stuck
from arena.matches.smoke import smoke_tests_of
from arena.runs.recording import match_record_failure, match_record_outcome
from arena.runs.smoke import bot_version_judge_smoke_tests, smoke_test_plan, smoke_test_start
from arena.runs.tasks import smoke_test_version
from tests.factories import clean_outcome, py_upload


def smoke_tests(version):
    """The version's smoke matches as its owner reads them, in plan order."""
    return smoke_tests_of(version_ids=[version.pk]).get(version.pk, [])

# Plays the first legal action; crashes in three-seat games only. It prints its start message's
# seat and seed to stderr, so the test can check which seed it was given.
CRASHES_AT_THREE_SEATS = b"""import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print("start", msg["seat"], msg["seed"], file=sys.stderr, flush=True)
        if msg["num_players"] == 3:
            raise SystemExit("three seats are too many for me")
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        print(json.dumps({"index": 0}), flush=True)
    elif msg["type"] == "end":
        break
"""


@pytest.fixture
def ladders(db, game_id):
    """Active ladders of the game at 2 and 3 seats (the 3-seat one twice), and a closed 4-seat one."""
    return [ladder_create(slug="duo", name="Duo", game=game_id, seat_count=2),
            ladder_create(slug="trio", name="Trio", game=game_id, seat_count=3),
            ladder_create(slug="trio-b", name="Trio again", game=game_id, seat_count=3),
            ladder_create(slug="quad", name="Closed", game=game_id, seat_count=4, active=False)]


def test_the_plan_has_each_seat_count_of_the_active_ladders_once(ladders, game_id):
    assert smoke_test_plan(game=game_id) == [(2, {}), (3, {})]


def test_a_game_without_ladders_is_still_smoke_tested_at_two_seats(db, game_id):
    assert smoke_test_plan(game=game_id) == [(2, {})]


def test_a_bot_that_crashes_only_at_three_seats_fails_its_smoke_test(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="two-only", game=game_id, upload=py_upload(CRASHES_AT_THREE_SEATS))
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "failed"
    version.refresh_from_db()
    tests = smoke_tests(version)
    assert [(t.seat_count, t.status) for t in tests] == [(2, "passed"), (3, "failed")]
    assert tests[1].fault_kind == "crash"
    assert "Failed at 3 seats" in version.validation_log and "Passed at 2 seats" in version.validation_log
    assert "three seats are too many for me" in version.validation_log
    bot.refresh_from_db()
    assert bot.active_version is None and not Rating.objects.filter(bot=bot).exists()


def test_a_clean_bot_passes_at_every_seat_count_and_enters_every_ladder(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="clean", game=game_id, upload=py_upload())
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "ready"
    assert [(t.seat_count, t.status) for t in smoke_tests(version)] == [(2, "passed"), (3, "passed")]
    assert set(Rating.objects.filter(bot=bot).values_list("ladder__slug", flat=True)) == {"duo", "trio", "trio-b"}
    assert smoke_test_version(version.pk) == "skipped"  # a redelivered message does nothing


def test_each_test_has_its_own_seed_and_the_bot_gets_seat_seeds_derived_as_in_ladder_matches(
        owner, ladders, game_id):
    from arena.matches.replay_store import unpack
    from workers.replay import verify
    from workers.runner import seat_seed

    first = bot_create(owner=owner, name="seeds-a", game=game_id, upload=py_upload(CRASHES_AT_THREE_SEATS))
    second = bot_create(owner=owner, name="seeds-b", game=game_id, upload=py_upload(CRASHES_AT_THREE_SEATS))
    for bot in (first, second):
        smoke_test_version(bot.versions.get().pk)
    tests = smoke_tests(first.versions.get()) + smoke_tests(second.versions.get())
    assert len({t.seed for t in tests}) == len(tests) == 4  # same file, fresh seeds every time
    for test in tests:
        assert 0 <= test.seat < test.seat_count
        assert f"start {test.seat} {seat_seed(test.seed, test.seat)}" in test.log
        if test.status == "passed":
            replay = unpack(Match.objects.get(pk=test.match_id).replay)
            assert replay["seed"] == test.seed and verify(replay) == []


def test_the_seed_is_shown_to_nobody_before_the_smoke_test_ends(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="curious", game=game_id, upload=py_upload())
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    first, second = smoke_tests(version)
    match_record_outcome(match_id=first.match_id, outcome={**clean_outcome(game_id, 2), "seed": first.seed})
    client = Client()
    client.force_login(owner)
    pages = [client.get(url).content.decode() for url in (
        f"/bots/{bot.pk}/", "/bots/mine/", "/", f"/api/bots/{bot.pk}/", f"/api/bots/{bot.pk}/versions/",
        f"/api/matches/{first.match_id}/", f"/matches/{first.match_id}/")]
    for test in (first, second):
        assert all(str(test.seed) not in page for page in pages)
    assert "pending" in pages[0]
    match_record_outcome(match_id=second.match_id, outcome={**clean_outcome(game_id, 3), "seed": second.seed})
    assert bot_version_judge_smoke_tests(version_id=version.pk).status == "ready"
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert str(first.seed) in page and str(second.seed) in page  # the owner reads them once it is over


def test_a_test_that_could_not_run_is_queued_again_then_failed(owner, ladders, game_id, settings):
    bot = bot_create(owner=owner, name="unlucky", game=game_id, upload=py_upload())
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    test = smoke_tests(version)[0]
    for attempt in range(1, settings.MATCH_MAX_ATTEMPTS + 1):
        assert match_claim(match_id=test.match_id, worker="w") is not None
        assert match_claim(match_id=test.match_id, worker="other") is None  # one worker at a time
        recorded = match_record_failure(match_id=test.match_id, error="Traceback ...\nOSError: no sandbox here")
        assert recorded == ("failed" if attempt == settings.MATCH_MAX_ATTEMPTS else "queued")
    assert [t.status for t in smoke_tests(version)] == ["failed", "skipped"]
    judged = bot_version_judge_smoke_tests(version_id=version.pk)
    assert judged.status == "failed" and "could not be played: OSError: no sandbox here" in judged.validation_log
    assert "Not played at 3 seats: an earlier test failed." in judged.validation_log


def test_a_smoke_game_of_a_lost_worker_is_queued_again_on_its_seed_and_the_plan_is_kept(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="orphan", game=game_id, upload=py_upload())
    version = bot.versions.get()
    group = smoke_test_start(version_id=version.pk)
    test = smoke_tests(version)[0]
    match_claim(match_id=test.match_id, worker="died")
    seeds = [t.seed for t in smoke_tests(version)]
    assert smoke_test_start(version_id=version.pk) == group  # planned once: a duplicate message plans nothing
    Match.objects.filter(pk=test.match_id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert match_requeue_stuck() == [test.match_id]
    assert [t.status for t in smoke_tests(version)] == ["queued", "queued"]
    assert [t.seed for t in smoke_tests(version)] == seeds  # the plan is kept
    assert smoke_test_version(version.pk) == "ready"
    assert [t.attempts for t in smoke_tests(version)] == [2, 1]


def test_smoke_games_are_unrated_and_on_no_public_list(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="quiet", game=game_id, upload=py_upload())
    version = bot.versions.get()
    assert smoke_test_version(version.pk) == "ready"
    games = Match.objects.filter(kind="smoke", seats__bot_version=version)
    assert games.count() == 2 and not games.filter(rated=True).exists()
    assert not match_list().filter(kind="smoke").exists() and not match_list(bot=bot).exists()
    listed = Client().get("/api/matches/").json()
    assert not [m for m in listed["results"] if m["kind"] == "smoke"]
    assert list(Rating.objects.filter(bot=bot).values_list("games", flat=True)) == [0, 0, 0]


def test_stored_bot_text_with_nul_bytes_is_recorded(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="nul", game=game_id, upload=py_upload())
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    test = smoke_tests(version)[0]
    outcome = clean_outcome(game_id, 2, faults=[{"seat": test.seat, "kind": "protocol", "step": 1,
                                                 "message": "bad\x00reply"}])
    outcome["logs"] = ["\x00stderr\x00"] * 2
    assert match_record_outcome(match_id=test.match_id, outcome=outcome)
    recorded = smoke_tests(version)[0]
    assert recorded.status == "failed" and "\x00" not in recorded.fault_message + recorded.log
    judged = bot_version_judge_smoke_tests(version_id=version.pk)
    assert judged.status == BotVersion.Status.FAILED and "bad\u2400reply" in judged.validation_log
    assert json.dumps(recorded.timing)  # what the seat reported is plain JSON


def test_staff_see_a_versions_smoke_tests_in_the_admin(owner, staff, ladders, game_id):
    bot = bot_create(owner=owner, name="admin-view", game=game_id, upload=py_upload())
    version = bot.versions.get()
    smoke_test_start(version_id=version.pk)
    client = Client()
    client.force_login(staff)
    staff.is_superuser = True
    staff.save()
    page = client.get(f"/admin/bots/botversion/{version.pk}/change/")
    assert page.status_code == 200 and "Smoke test" in page.content.decode()
    assert client.get("/admin/bots/botversion/?paused_at__isempty=0").status_code == 200


def test_ladder_games_yield_to_a_waiting_smoke_test(owner, ladders, game_id, make_bot):
    from arena.ladders.services import matchmaking_tick

    for name in ("yield-a", "yield-b", "yield-c"):
        make_bot(name, game_id)
    version = bot_create(owner=owner, name="waiting", game=game_id, upload=py_upload()).versions.get()
    smoke_test_start(version_id=version.pk)
    assert matchmaking_tick() == 0  # an author waits: no ladder game is made meanwhile
    assert not Match.objects.exclude(kind="smoke").exists()
    for test in smoke_tests(version):
        match_record_outcome(match_id=test.match_id, outcome=clean_outcome(game_id, test.seat_count))
    assert BotVersion.objects.get(pk=version.pk).status == "ready"
    assert matchmaking_tick() > 0 and Match.objects.filter(kind="ladder").exists()


def test_the_match_list_refuses_to_filter_on_smoke_tests(db):
    response = Client().get("/api/matches/?kind=smoke")
    assert response.status_code == 400 and "smoke" not in response.json()["kind"][0]


def test_a_dead_process_of_the_smoke_task_ends_the_leases_it_held(owner, ladders, game_id):
    from arena.runs.smoke import smoke_end_lease_of_lost_process

    version = bot_create(owner=owner, name="lost-pool", game=game_id, upload=py_upload()).versions.get()
    smoke_test_start(version_id=version.pk)
    first, second = smoke_tests(version)
    match_claim(match_id=first.match_id, worker="node@host:41")
    match_claim(match_id=second.match_id, worker="node@host:42")
    assert smoke_end_lease_of_lost_process(version.pk, worker="node@host:41")
    assert not smoke_end_lease_of_lost_process(version.pk, worker="node@host:43")  # held nothing
    leases = dict(Match.objects.filter(kind="smoke").values_list("worker", "lease_expires_at"))
    assert leases["node@host:41"] <= timezone.now() < leases["node@host:42"]
