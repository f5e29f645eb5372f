"""Smoke tests: one real sandboxed match per seat count of the ladders a version will enter, on a
seed drawn for that test (seat seeds derived from it as in ladder matches), kept from the author
until the smoke test has ended."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.bots.models import BotVersion, SmokeTest
from arena.bots.services import bot_create
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from arena.runs.smoke import (
    bot_version_claim_smoke_test,
    bot_version_judge_smoke_tests,
    smoke_test_claim,
    smoke_test_plan,
    smoke_test_record_failure,
    smoke_test_record_outcome,
)
from arena.runs.tasks import smoke_test_version
from tests.factories import clean_outcome, py_upload

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
    tests = list(version.smoke_tests.order_by("index"))
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
    assert list(version.smoke_tests.values_list("seat_count", "status")) == [(2, "passed"), (3, "passed")]
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
    tests = list(SmokeTest.objects.order_by("version_id", "index"))
    assert len({t.seed for t in tests}) == len(tests) == 4  # same file, fresh seeds every time
    for test in tests:
        assert 0 <= test.seat < test.seat_count
        assert f"start {test.seat} {seat_seed(test.seed, test.seat)}" in test.log
        if test.status == "passed":
            replay = unpack(test.replay)
            assert replay["seed"] == test.seed and verify(replay) == []


def test_the_seed_is_shown_to_nobody_before_the_smoke_test_ends(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="curious", game=game_id, upload=py_upload())
    version = bot_version_claim_smoke_test(version_id=bot.versions.get().pk)
    first, second = version.smoke_tests.order_by("index")
    smoke_test_record_outcome(test_id=first.pk, outcome={**clean_outcome(game_id, 2), "seed": first.seed})
    client = Client()
    client.force_login(owner)
    pages = [client.get(url).content.decode() for url in (
        f"/bots/{bot.pk}/", "/bots/mine/", "/", f"/api/bots/{bot.pk}/", f"/api/bots/{bot.pk}/versions/")]
    for test in (first, second):
        assert all(str(test.seed) not in page for page in pages)
    assert "pending" in pages[0]
    smoke_test_record_outcome(test_id=second.pk, outcome={**clean_outcome(game_id, 3), "seed": second.seed})
    assert bot_version_judge_smoke_tests(version_id=version.pk).status == "ready"
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert str(first.seed) in page and str(second.seed) in page  # the owner reads them once it is over


def test_a_test_that_could_not_run_is_queued_again_then_failed(owner, ladders, game_id, settings):
    bot = bot_create(owner=owner, name="unlucky", game=game_id, upload=py_upload())
    version = bot_version_claim_smoke_test(version_id=bot.versions.get().pk)
    test = version.smoke_tests.order_by("index").first()
    for attempt in range(1, settings.MATCH_MAX_ATTEMPTS + 1):
        assert smoke_test_claim(test_id=test.pk, worker="w") is not None
        assert smoke_test_claim(test_id=test.pk, worker="other") is None  # one worker at a time
        recorded = smoke_test_record_failure(test_id=test.pk, error="Traceback ...\nOSError: no sandbox here")
        assert recorded.status == ("failed" if attempt == settings.MATCH_MAX_ATTEMPTS else "queued")
    assert list(version.smoke_tests.values_list("status", flat=True)) == ["failed", "skipped"]
    judged = bot_version_judge_smoke_tests(version_id=version.pk)
    assert judged.status == "failed" and "could not be played: OSError: no sandbox here" in judged.validation_log


def test_a_restarted_smoke_test_queues_the_tests_its_lost_worker_left_running(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="orphan", game=game_id, upload=py_upload())
    version = bot_version_claim_smoke_test(version_id=bot.versions.get().pk)
    test = version.smoke_tests.order_by("index").first()
    smoke_test_claim(test_id=test.pk, worker="died")
    seeds = list(version.smoke_tests.values_list("seed", flat=True))
    assert bot_version_claim_smoke_test(version_id=version.pk) is None  # its lease is live: a duplicate

    def lose_the_worker():
        BotVersion.objects.filter(pk=version.pk).update(smoke_lease_expires_at=timezone.now() - timedelta(seconds=1))

    lose_the_worker()
    again = bot_version_claim_smoke_test(version_id=version.pk)
    assert again.smoke_attempts == 2
    assert list(version.smoke_tests.values_list("status", flat=True)) == ["queued", "queued"]
    assert list(version.smoke_tests.values_list("seed", flat=True)) == seeds  # the plan is kept
    lose_the_worker()
    assert smoke_test_version(version.pk) == "ready"
    assert BotVersion.objects.get(pk=version.pk).smoke_lease_expires_at is None  # judged: the lease is let go


def test_stored_bot_text_with_nul_bytes_is_recorded(owner, ladders, game_id):
    bot = bot_create(owner=owner, name="nul", game=game_id, upload=py_upload())
    version = bot_version_claim_smoke_test(version_id=bot.versions.get().pk)
    test = version.smoke_tests.order_by("index").first()
    outcome = clean_outcome(game_id, 2, faults=[{"seat": test.seat, "kind": "protocol", "step": 1,
                                                 "message": "bad\x00reply"}])
    outcome["logs"] = ["\x00stderr\x00"] * 2
    recorded = smoke_test_record_outcome(test_id=test.pk, outcome=outcome)
    assert recorded.status == "failed" and "\x00" not in recorded.fault_message + recorded.log
    judged = bot_version_judge_smoke_tests(version_id=version.pk)
    assert judged.status == BotVersion.Status.FAILED and "bad\u2400reply" in judged.validation_log
    assert json.dumps(recorded.outcome)  # the public outcome is plain JSON


def test_staff_see_a_versions_smoke_tests_in_the_admin(owner, staff, ladders, game_id):
    bot = bot_create(owner=owner, name="admin-view", game=game_id, upload=py_upload())
    version = bot_version_claim_smoke_test(version_id=bot.versions.get().pk)
    client = Client()
    client.force_login(staff)
    staff.is_superuser = True
    staff.save()
    page = client.get(f"/admin/bots/botversion/{version.pk}/change/")
    assert page.status_code == 200 and "Smoke test" in page.content.decode()
    assert client.get("/admin/bots/botversion/?paused_at__isempty=0").status_code == 200
