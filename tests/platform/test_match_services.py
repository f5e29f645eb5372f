"""Match services: creation rules, recording exactly once, rating changes, stuck matches, challenges."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import override_settings
from django.utils import timezone

from arena.ladders.models import Rating, RatingChange
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.models import Match
from arena.matches.selectors import match_list, match_seat_log_visible
from arena.matches.services import (
    ChallengeRateLimited,
    challenge_create,
    match_claim,
    match_create,
    match_requeue_stuck,
)
from arena.runs.recording import match_record_failure, match_record_outcome
from tests.factories import clean_outcome


@pytest.fixture
def ladder(db, game_id):
    return ladder_create(slug="duel", name="Duel", game=game_id, seat_count=2, k_factor=32)


@pytest.fixture
def duel(ladder, make_bot, game_id, other_user):
    a = make_bot("ann", game_id)
    b = make_bot("ben", game_id, user=other_user)
    for bot in (a, b):
        ladder_enter(ladder=ladder, bot=bot)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder, seed=5)
    return match, a, b


def test_a_new_match_is_queued_with_one_seat_per_version(duel):
    match, a, b = duel
    assert match.status == "queued" and match.rated and match.queued_at is not None
    assert [s.bot_version.bot for s in match.seats.order_by("seat")] == [a, b]


def test_a_match_without_a_given_seed_draws_one_from_53_bits(duel, ladder, game_id):
    from arena.matches.models import MAX_SEED

    _, a, b = duel
    seeds = {match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder).seed
             for _ in range(8)}
    assert all(0 <= seed <= MAX_SEED for seed in seeds)
    # Eight draws all below 2**31 would happen by chance once in 2**176 runs.
    assert max(seeds) >= 2**31


def test_it_refuses_a_match_of_a_bot_against_itself(duel, game_id):
    _, a, _ = duel
    with pytest.raises(ValidationError) as caught:
        match_create(game=game_id, versions=[a.active_version, a.active_version])
    assert caught.value.code == "same_bot"


def test_it_refuses_a_version_that_is_not_ready(duel, game_id, owner):
    from arena.bots.services import bot_create
    from tests.factories import py_upload

    _, a, _ = duel
    pending = bot_create(owner=owner, name="fresh", game=game_id, upload=py_upload()).versions.get()
    with pytest.raises(ValidationError) as caught:
        match_create(game=game_id, versions=[a.active_version, pending])
    assert caught.value.code == "not_ready"


def test_it_refuses_a_seat_count_the_game_does_not_take(duel, game_id):
    _, a, _ = duel
    with pytest.raises(ValidationError) as caught:
        match_create(game=game_id, versions=[a.active_version] * 0)
    assert caught.value.code == "seat_count"


def test_claiming_twice_gives_the_match_to_one_worker_only(duel):
    match, _, _ = duel
    assert match_claim(match_id=match.pk, worker="w1") is not None
    assert match_claim(match_id=match.pk, worker="w2") is None
    match.refresh_from_db()
    assert match.status == "running" and match.worker == "w1" and match.attempts == 1


def test_recording_an_outcome_fills_seats_and_moves_ratings(duel, ladder, game_id):
    match, a, b = duel
    match_claim(match_id=match.pk, worker="w1")
    outcome = clean_outcome(game_id, 2, [1, 2])
    assert match_record_outcome(match_id=match.pk, outcome=outcome, replay=b"zz")
    match.refresh_from_db()
    assert match.status == "done" and bytes(match.replay) == b"zz" and match.finished_at
    seats = list(match.seats.order_by("seat"))
    assert [s.rank for s in seats] == [1, 2] and seats[0].log == "stderr of seat 0"
    assert [s.timing for s in seats] == outcome["timing"]
    ra, rb = Rating.objects.get(bot=a), Rating.objects.get(bot=b)
    assert ra.elo == pytest.approx(1216) and rb.elo == pytest.approx(1184)
    assert (ra.games, ra.wins, rb.losses) == (1, 1, 1)
    assert RatingChange.objects.filter(match=match).count() == 2


def test_recording_the_same_outcome_twice_changes_nothing(duel, game_id):
    match, a, _ = duel
    match_claim(match_id=match.pk, worker="w1")
    outcome = clean_outcome(game_id, 2, [1, 2])
    assert match_record_outcome(match_id=match.pk, outcome=outcome) is True
    snapshot = list(Rating.objects.order_by("id").values())
    assert match_record_outcome(match_id=match.pk, outcome=outcome) is False
    assert match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2, [2, 1])) is False
    assert list(Rating.objects.order_by("id").values()) == snapshot
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_faulted_seat_is_recorded_and_loses_rating(duel, game_id):
    match, a, b = duel
    match_claim(match_id=match.pk, worker="w1")
    faults = [{"seat": 0, "kind": "crash", "step": 3, "message": "Traceback: boom"}]
    match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2, [1, 2], faults))
    seat0 = match.seats.get(seat=0)
    assert (seat0.fault_kind, seat0.fault_step, seat0.fault_message) == ("crash", 3, "Traceback: boom")
    assert Rating.objects.get(bot=a).elo < 1200 < Rating.objects.get(bot=b).elo


def test_a_challenge_match_is_recorded_without_rating(duel, game_id, owner):
    _, a, b = duel
    match = challenge_create(by=owner, bot=a, opponents=[b], seed=3)
    assert match.kind == "challenge" and not match.rated and match.ladder is None
    match_claim(match_id=match.pk, worker="w")
    match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2))
    assert not RatingChange.objects.filter(match=match).exists()
    assert Rating.objects.get(bot=a).games == 0


def test_only_the_owner_or_staff_can_challenge_with_a_bot(duel, other_user, staff, anonymous):
    _, a, b = duel
    with pytest.raises(PermissionDenied):
        challenge_create(by=other_user, bot=a, opponents=[b])
    with pytest.raises(PermissionDenied):
        challenge_create(by=anonymous, bot=a, opponents=[b])
    assert challenge_create(by=staff, bot=a, opponents=[b]).requested_by == staff


@override_settings(CHALLENGES_PER_HOUR=2)
def test_challenges_are_rate_limited_per_user(duel, owner):
    _, a, b = duel
    challenge_create(by=owner, bot=a, opponents=[b])
    challenge_create(by=owner, bot=a, opponents=[b])
    with pytest.raises(ChallengeRateLimited):
        challenge_create(by=owner, bot=a, opponents=[b])
    assert Match.objects.filter(kind="challenge").count() == 2


def test_a_challenge_cannot_put_a_bot_against_itself(duel, owner):
    _, a, _ = duel
    with pytest.raises(ValidationError):
        challenge_create(by=owner, bot=a, opponents=[a])


@override_settings(MATCH_LEASE_SECONDS=20, MATCH_MAX_ATTEMPTS=2)
def test_a_match_whose_worker_stopped_renewing_its_lease_is_requeued_then_failed_when_out_of_attempts(duel):
    match, _, _ = duel
    match_claim(match_id=match.pk, worker="dead-worker")
    now = timezone.now()
    assert match_requeue_stuck(now=now + timedelta(seconds=10)) == []  # its lease is alive
    assert match_requeue_stuck(now=now + timedelta(seconds=30)) == [match.pk]
    match.refresh_from_db()
    assert match.status == "queued" and "dead-worker" in match.error and match.seed == 5
    assert match.sent_at is None and match.lease_expires_at is None  # sent after commit, or by the relay
    match_claim(match_id=match.pk, worker="dead-again")
    assert match_requeue_stuck(now=timezone.now() + timedelta(seconds=30)) == []
    match.refresh_from_db()
    assert match.status == "failed" and match.attempts == 2


@override_settings(MATCH_LEASE_SECONDS=20, MATCH_MAX_ATTEMPTS=2)
def test_the_recovery_sweep_logs_each_match_it_requeues_or_fails_with_the_worker_it_lost(duel, caplog):
    # The sweep's summary counted re-queued matches only: a match failed for good left no log line.
    match, _, _ = duel
    caplog.set_level("WARNING", logger="arena.matches.services")
    for worker in ("worker1@vm:7043", "worker2@vm:7046"):
        match_claim(match_id=match.pk, worker=worker)
        match_requeue_stuck(now=timezone.now() + timedelta(seconds=30))
    logged = [r.getMessage() for r in caplog.records]
    assert any(f"match {match.pk} re-queued" in m and "worker1@vm:7043" in m for m in logged), logged
    assert any(f"match {match.pk} failed" in m and "worker2@vm:7046" in m for m in logged), logged


@override_settings(MATCH_HARD_TIME_LIMIT=100, MATCH_STUCK_GRACE=10)
def test_a_match_running_without_a_lease_since_before_leases_counts_as_lost_after_the_time_limit(duel):
    match, _, _ = duel
    match_claim(match_id=match.pk, worker="old-worker")
    Match.objects.filter(pk=match.pk).update(lease_expires_at=None)
    assert match_requeue_stuck(now=timezone.now() + timedelta(seconds=60)) == []
    assert match_requeue_stuck(now=timezone.now() + timedelta(seconds=200)) == [match.pk]


def test_a_lost_match_does_not_hold_a_place_in_its_ladders_queue(duel):
    from arena.matches.services import match_open_q

    match, _, _ = duel
    is_open = lambda now: Match.objects.filter(match_open_q(now=now), pk=match.pk).exists()  # noqa: E731
    assert is_open(timezone.now())  # queued
    match_claim(match_id=match.pk, worker="w1")
    assert is_open(timezone.now())  # running on a live worker
    assert not is_open(timezone.now() + timedelta(seconds=3600))  # its lease ran out long ago


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_an_infrastructure_failure_requeues_until_attempts_run_out(duel):
    match, _, _ = duel
    match_claim(match_id=match.pk, worker="w")
    assert match_record_failure(match_id=match.pk, error="bwrap missing") == "queued"
    match_claim(match_id=match.pk, worker="w")
    assert match_record_failure(match_id=match.pk, error="bwrap missing") == "failed"
    match.refresh_from_db()
    assert match.error == "bwrap missing" and match.finished_at is not None


def test_a_seat_log_is_visible_to_its_owner_and_staff_only(duel, owner, other_user, staff, anonymous):
    match, a, _ = duel
    seat = match.seats.get(bot_version__bot=a)
    assert match_seat_log_visible(seat=seat, user=owner)
    assert match_seat_log_visible(seat=seat, user=staff)
    assert not match_seat_log_visible(seat=seat, user=other_user)
    assert not match_seat_log_visible(seat=seat, user=anonymous)


def test_matches_can_be_listed_by_bot_ladder_and_status(duel, ladder):
    match, a, _ = duel
    assert list(match_list(bot=a)) == [match]
    assert list(match_list(ladder="duel")) == [match]
    assert list(match_list(ladder=ladder, status="done")) == []


def test_a_failed_match_can_be_requeued_but_a_done_one_cannot(duel, game_id, django_capture_on_commit_callbacks):
    from arena.matches.services import match_requeue

    match, _, _ = duel
    Match.objects.filter(pk=match.pk).update(status="failed", attempts=3)
    with django_capture_on_commit_callbacks() as callbacks:
        assert match_requeue(match_id=match.pk)
    assert len(callbacks) == 1
    match.refresh_from_db()
    assert match.status == "queued" and match.attempts == 0
    match_claim(match_id=match.pk, worker="w")
    match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2))
    assert not match_requeue(match_id=match.pk)


def test_an_elo_ladder_also_keeps_each_bots_mean_score(duel, game_id):
    match, a, b = duel
    match_claim(match_id=match.pk, worker="w1")
    outcome = clean_outcome(game_id, 2, [1, 2])
    outcome["scores"] = [7, 3]
    match_record_outcome(match_id=match.pk, outcome=outcome)
    assert Rating.objects.get(bot=a).mean_score == 7 and Rating.objects.get(bot=b).mean_score == 3


@override_settings(MATCH_MAX_ATTEMPTS=2)
def test_a_redelivered_match_is_taken_over_only_from_a_worker_that_is_gone(duel):
    from arena.matches.services import match_reclaim

    match, _, _ = duel
    assert match_reclaim(match_id=match.pk, worker="w2", gone="w1") is None  # queued: a plain claim is the way
    match_claim(match_id=match.pk, worker="w1")
    assert match_reclaim(match_id=match.pk, worker="w2") is None  # w1's lease is alive
    assert match_reclaim(match_id=match.pk, worker="w2", gone="w9") is None  # not who runs it
    taken = match_reclaim(match_id=match.pk, worker="w2", gone="w1")
    assert taken.worker == "w2" and taken.attempts == 2 and taken.status == "running"
    later = timezone.now() + timedelta(seconds=3600)  # w2's lease ran out, but attempts did too
    assert match_reclaim(match_id=match.pk, worker="w3", now=later) is None


def test_a_redelivered_match_is_taken_over_once_its_lease_ran_out(duel):
    from arena.matches.services import match_reclaim

    match, _, _ = duel
    match_claim(match_id=match.pk, worker="w1")
    taken = match_reclaim(match_id=match.pk, worker="w2", now=timezone.now() + timedelta(seconds=3600))
    assert taken.worker == "w2" and taken.attempts == 2


def test_a_worker_whose_lease_was_taken_over_cannot_requeue_the_match_another_worker_runs(duel):
    from arena.matches.services import match_reclaim

    match, _, _ = duel
    match_claim(match_id=match.pk, worker="slow")
    match_reclaim(match_id=match.pk, worker="fresh", gone="slow")
    assert match_record_failure(match_id=match.pk, error="late trouble", worker="slow", attempt=1) == "running"
    match.refresh_from_db()
    assert match.worker == "fresh" and match.attempts == 2 and match.error == ""


def test_a_worker_still_running_a_match_the_admin_requeued_cannot_requeue_or_hand_back_the_next_run(duel):
    from arena.matches.services import match_hand_back, match_requeue

    match, _, _ = duel
    match_claim(match_id=match.pk, worker="slow")
    assert match_requeue(match_id=match.pk)  # the admin sends it again; "slow" plays on
    match_claim(match_id=match.pk, worker="fresh")  # the attempts started again: its attempt is 1 too
    assert match_record_failure(match_id=match.pk, error="late trouble", worker="slow", attempt=1) == "running"
    assert not match_hand_back(match_id=match.pk, attempt=1, worker="slow")
    match.refresh_from_db()
    assert (match.status, match.worker, match.error) == ("running", "fresh", "")


def test_a_match_handed_back_by_a_worker_shutting_down_is_queued_at_once_without_using_an_attempt(
        duel, django_capture_on_commit_callbacks):
    from arena.matches.services import match_hand_back

    match, _, _ = duel
    match_claim(match_id=match.pk, worker="leaving")
    assert not match_hand_back(match_id=match.pk, attempt=2)  # not that attempt's to give
    with django_capture_on_commit_callbacks() as callbacks:
        assert match_hand_back(match_id=match.pk, attempt=1, worker="leaving")
    assert len(callbacks) == 1
    match.refresh_from_db()
    assert match.status == "queued" and match.attempts == 0 and match.lease_expires_at is None
    assert "leaving" in match.error


def test_matches_left_running_by_a_stopped_local_worker_are_requeued(duel, game_id, make_bot, ladder):
    from arena.matches.services import match_requeue_abandoned

    match, a, b = duel
    other = match_create(game=game_id, versions=[b.active_version, a.active_version], ladder=ladder)
    match_claim(match_id=match.pk, worker="arena-local@box:123")
    match_claim(match_id=other.pk, worker="worker7@elsewhere:9")
    assert match_requeue_abandoned(worker_prefix="arena-local@box") == [match.pk]
    assert Match.objects.get(pk=match.pk).status == "queued"
    assert Match.objects.get(pk=other.pk).status == "running"
