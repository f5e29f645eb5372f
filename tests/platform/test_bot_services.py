"""Bot services: creation, new versions, smoke-test verdicts, activation and ladder entry."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from arena.bots.models import Bot, BotVersion
from arena.bots.services import bot_create, bot_update, bot_version_create
from arena.ladders.models import Rating
from arena.ladders.services import ladder_create
from arena.runs.smoke import bot_builtin_ensure, bot_version_record_smoke_test
from tests.factories import clean_outcome, py_upload


def test_a_new_bot_starts_with_a_pending_version_and_no_active_one(owner, game_id, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        bot = bot_create(owner=owner, name="newbie", game=game_id, upload=py_upload())
    assert bot.active_version is None
    assert bot.versions.get().status == "pending"
    assert len(callbacks) == 1  # the smoke test is sent once the upload is committed


def test_it_rejects_a_taken_name_whatever_its_case(make_bot, owner, game_id):
    make_bot("Shark", game_id)
    with pytest.raises(ValidationError) as caught:
        bot_create(owner=owner, name="shark", game=game_id, upload=py_upload())
    assert caught.value.code == "name_taken"


def test_it_rejects_a_bad_name_and_an_unknown_game(owner, game_id):
    with pytest.raises(ValidationError):
        bot_create(owner=owner, name="no spaces allowed", game=game_id, upload=py_upload())
    with pytest.raises(ValidationError) as caught:
        bot_create(owner=owner, name="lost", game="chess", upload=py_upload())
    assert caught.value.code == "unknown_game"
    assert not Bot.objects.exists()


def test_a_clean_smoke_test_makes_the_version_ready_active_and_entered(owner, game_id):
    ladder = ladder_create(slug="l2", name="L2", game=game_id, seat_count=2)
    bot = bot_create(owner=owner, name="passer", game=game_id, upload=py_upload())
    version = bot_version_record_smoke_test(version_id=bot.versions.get().pk, outcome=clean_outcome(game_id, 2))
    bot.refresh_from_db()
    assert version.status == "ready" and "Smoke test passed" in version.validation_log
    assert "stderr of seat 0" in version.validation_log
    assert bot.active_version == version
    assert Rating.objects.get(ladder=ladder, bot=bot).elo == ladder.initial_rating


def test_a_faulted_smoke_test_fails_the_version_with_the_reason_in_its_log(owner, game_id):
    bot = bot_create(owner=owner, name="crasher", game=game_id, upload=py_upload())
    faults = [{"seat": 0, "kind": "crash", "step": 2, "message": "ZeroDivisionError"}]
    version = bot_version_record_smoke_test(
        version_id=bot.versions.get().pk, outcome=clean_outcome(game_id, 2, faults=faults))
    bot.refresh_from_db()
    assert version.status == "failed" and "crash" in version.validation_log
    assert "ZeroDivisionError" in version.validation_log
    assert bot.active_version is None and not Rating.objects.filter(bot=bot).exists()


def test_a_fault_of_the_builtin_opponent_does_not_fail_the_version(owner, game_id):
    bot = bot_create(owner=owner, name="lucky", game=game_id, upload=py_upload())
    faults = [{"seat": 1, "kind": "timeout", "step": 2, "message": ""}]
    version = bot_version_record_smoke_test(
        version_id=bot.versions.get().pk, outcome=clean_outcome(game_id, 2, faults=faults))
    assert version.status == "ready"


def test_a_smoke_test_verdict_is_recorded_once(owner, game_id):
    bot = bot_create(owner=owner, name="once", game=game_id, upload=py_upload())
    vid = bot.versions.get().pk
    bot_version_record_smoke_test(version_id=vid, outcome=clean_outcome(game_id, 2))
    again = bot_version_record_smoke_test(version_id=vid, outcome=None, log="late failure")
    assert again.status == "ready" and "late failure" not in again.validation_log


def test_a_new_version_replaces_the_active_one_only_when_it_passes(make_bot, owner, game_id):
    bot = make_bot("upgrader", game_id)
    first = bot.active_version
    second = bot_version_create(bot=bot, upload=py_upload(name="v2.py"), by=owner)
    assert second.number == 2 and second.status == "pending"
    bot.refresh_from_db()
    assert bot.active_version == first
    bot_version_record_smoke_test(version_id=second.pk, outcome=clean_outcome(game_id, 2))
    bot.refresh_from_db()
    assert bot.active_version == second
    third = bot_version_create(bot=bot, upload=py_upload(name="v3.py"), by=owner)
    bot_version_record_smoke_test(version_id=third.pk, outcome=None, log="could not start")
    bot.refresh_from_db()
    assert bot.active_version == second


def test_only_the_owner_or_staff_can_upload_a_version(make_bot, other_user, staff, anonymous, game_id):
    bot = make_bot("guarded", game_id)
    for intruder in (other_user, anonymous):
        with pytest.raises(PermissionDenied):
            bot_version_create(bot=bot, upload=py_upload(), by=intruder)
    assert bot_version_create(bot=bot, upload=py_upload(), by=staff).number == 2
    assert bot.versions.count() == 2


def test_only_the_owner_or_staff_can_change_a_bot(make_bot, owner, other_user, game_id):
    bot = make_bot("editable", game_id)
    with pytest.raises(PermissionDenied):
        bot_update(bot=bot, by=other_user, description="mine now")
    bot_update(bot=bot, by=owner, description="A careful diver.", is_active=False)
    bot.refresh_from_db()
    assert bot.description == "A careful diver." and not bot.is_active


def test_a_builtin_bot_is_ready_at_once_and_takes_no_uploads(staff, game_id):
    bot = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    assert bot_builtin_ensure(owner=staff, game=game_id, builtin="random") == bot
    assert bot.active_version.status == BotVersion.Status.READY and bot.active_version.kind == "builtin"
    with pytest.raises(ValidationError):
        bot_version_create(bot=bot, upload=py_upload(), by=staff)
    with pytest.raises(ValidationError):
        bot_builtin_ensure(owner=staff, game=game_id, builtin="no-such-bot")


def test_the_database_refuses_two_names_differing_only_in_case(make_bot, owner, game_id):
    from django.db import IntegrityError, transaction

    make_bot("Orca", game_id)
    with pytest.raises(IntegrityError), transaction.atomic():
        Bot.objects.create(owner=owner, name="ORCA", game=game_id)


def _smoke_game(version):
    """The first game of the version's smoke test, planned now (a smoke test is a group of matches)."""
    from arena.matches.smoke import smoke_tests_of
    from arena.runs.smoke import smoke_test_start

    smoke_test_start(version_id=version.pk)
    return smoke_tests_of(version_ids=[version.pk])[version.pk][0].match_id


def test_a_smoke_test_whose_worker_stopped_renewing_its_lease_is_requeued_then_failed(owner, game_id, settings):
    from datetime import timedelta

    from django.utils import timezone

    from arena.matches.models import Match
    from arena.matches.services import match_claim, match_requeue_stuck
    from arena.runs.recording import match_groups_settle

    settings.MATCH_LEASE_SECONDS, settings.MATCH_MAX_ATTEMPTS = 20, 2
    version = bot_create(owner=owner, name="lost", game=game_id, upload=py_upload()).versions.get()
    game = _smoke_game(version)
    assert match_claim(match_id=game, worker="w").attempts == 1
    now = timezone.now()
    assert match_requeue_stuck(now=now + timedelta(seconds=10)) == []  # lease still alive
    assert match_requeue_stuck(now=now + timedelta(seconds=30)) == [game]
    version.refresh_from_db()
    match = Match.objects.get(pk=game)
    assert version.status == "pending" and match.lease_expires_at is None
    assert match.sent_at is None  # waiting again: sent after commit (or by the outbox relay)
    match_claim(match_id=game, worker="w")
    assert match_requeue_stuck(now=timezone.now() + timedelta(seconds=30)) == []
    match_groups_settle()
    version.refresh_from_db()
    assert version.status == "failed" and "lost 2 times" in version.validation_log


def test_a_duplicate_smoke_test_message_does_nothing_while_a_worker_holds_its_lease(owner, game_id, settings):
    from datetime import timedelta

    from django.utils import timezone

    from arena.matches.services import match_claim, match_reclaim
    from arena.runs.smoke import smoke_test_start

    settings.MATCH_LEASE_SECONDS = 20
    version = bot_create(owner=owner, name="twice", game=game_id, upload=py_upload()).versions.get()
    game = _smoke_game(version)
    assert match_claim(match_id=game, worker="first") is not None
    assert match_claim(match_id=game, worker="second") is None
    assert match_reclaim(match_id=game, worker="second") is None  # its lease is alive
    assert smoke_test_start(version_id=version.pk) is not None  # planned once: nothing more is queued
    later = timezone.now() + timedelta(seconds=30)  # the first worker is gone: its lease ran out
    assert match_reclaim(match_id=game, worker="second", now=later).attempts == 2


def test_a_smoke_test_that_could_not_run_goes_back_to_the_queue_until_attempts_run_out(
        owner, game_id, settings, django_capture_on_commit_callbacks):
    from arena.matches.services import match_claim
    from arena.runs.recording import match_record_failure

    settings.MATCH_MAX_ATTEMPTS = 2
    version = bot_create(owner=owner, name="unlucky", game=game_id, upload=py_upload()).versions.get()
    game = _smoke_game(version)
    match_claim(match_id=game, worker="w")
    with django_capture_on_commit_callbacks() as callbacks:
        assert match_record_failure(match_id=game, error="no bwrap", worker="w", attempt=1) == "queued"
    assert len(callbacks) == 1  # sent again at once
    match_claim(match_id=game, worker="w")
    assert match_record_failure(match_id=game, error="no bwrap", worker="w", attempt=1) == "running"  # a stale attempt
    assert match_record_failure(match_id=game, error="no bwrap", worker="w", attempt=2) == "failed"
    version.refresh_from_db()
    assert version.status == "failed" and "could not be played: no bwrap" in version.validation_log


def test_a_smoke_test_handed_back_by_a_worker_shutting_down_keeps_its_attempt(owner, game_id, settings):
    from arena.matches.models import Match
    from arena.matches.services import match_claim, match_hand_back

    settings.MATCH_MAX_ATTEMPTS = 1
    version = bot_create(owner=owner, name="interrupted", game=game_id, upload=py_upload()).versions.get()
    game = _smoke_game(version)
    match_claim(match_id=game, worker="w")
    assert match_hand_back(match_id=game, attempt=1, worker="w")
    match = Match.objects.get(pk=game)
    assert match.status == "queued" and match.attempts == 0 and match.lease_expires_at is None
    version.refresh_from_db()
    assert version.status == "pending"


def test_the_recovery_sweep_logs_each_smoke_test_it_requeues_or_fails(owner, game_id, settings, caplog):
    from datetime import timedelta

    from django.utils import timezone

    from arena.matches.services import match_claim, match_requeue_stuck

    settings.MATCH_LEASE_SECONDS, settings.MATCH_MAX_ATTEMPTS = 20, 2
    caplog.set_level("WARNING", logger="arena.matches.services")
    version = bot_create(owner=owner, name="lost-twice", game=game_id, upload=py_upload()).versions.get()
    game = _smoke_game(version)
    for worker in ("worker1@vm:7043", "worker2@vm:7046"):
        match_claim(match_id=game, worker=worker)
        match_requeue_stuck(now=timezone.now() + timedelta(seconds=30))
    logged = [r.getMessage() for r in caplog.records]
    assert any(f"match {game} re-queued" in m and "worker1@vm:7043" in m for m in logged), logged
    assert any(f"match {game} failed" in m and "worker2@vm:7046" in m for m in logged), logged
