"""The outbox: work is committed whatever the broker does, and what has no message in flight is sent
again by the recovery sweep. Against a real (private) Redis, started and stopped by the test."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from arena.bots.models import BotVersion
from arena.jobs.outbox import broker_queue_depth, outbox_due
from arena.matches.models import Match
from arena.runs.recovery import recovery_sweep, work_outboxes
from arena.runs.smoke import bot_builtin_ensure
from tests.factories import py_upload
from tests.platform.brokers import PrivateRedis, celery_broker, free_port


@pytest.fixture
def redis_server(tmp_path):
    server = PrivateRedis(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def api(owner):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    return client


def test_an_upload_and_a_challenge_answer_201_while_the_broker_is_down_and_are_sent_once_it_is_back(
        transactional_db, api, staff, make_bot, game_id, redis_server):
    ready = make_bot("ready-one", game_id)
    opponent = bot_builtin_ensure(owner=staff, game=game_id, builtin="random")
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        upload = api.post("/api/bots/", {"name": "while-down", "game": game_id, "file": py_upload()},
                          format="multipart")
        challenge = api.post("/api/challenges/", {"bot": ready.pk, "opponents": [opponent.pk]}, format="json")
        assert upload.status_code == 201, upload.content
        assert challenge.status_code == 201, challenge.content
        version = BotVersion.objects.get(bot__name="while-down")
        match = Match.objects.get(pk=challenge.json()["id"])
        assert version.status == "pending" and match.sent_at is None  # committed, not sent
        later = timezone.now() + timedelta(seconds=5)
        report = recovery_sweep(now=later)
        assert report.sent == [] and report.started_smoke_tests == [version.pk]  # planned, nothing sent
    smoke = Match.objects.get(kind="smoke", seats__bot_version=version)
    with celery_broker(redis_server.url) as queue:
        sent = recovery_sweep(now=later).sent
        assert sorted(sent) == sorted([("arena.run_match", match.pk), ("arena.run_match", smoke.pk)])
        assert redis_server.queue_length(queue) == 2
        assert recovery_sweep(now=later).sent == []  # in flight now: not sent twice
    match.refresh_from_db()
    assert match.sent_at is not None and match.sends == 1


@override_settings(OUTBOX_LOST_GRACE=10, OUTBOX_RESEND_AFTER=30, OUTBOX_RESEND_MAX=100)
def test_queued_work_is_sent_again_when_the_queue_holds_fewer_messages_than_work_waits_for(make_bot, game_id):
    from arena.matches.services import match_create

    a, b = make_bot("one", game_id), make_bot("two", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(sent_at=now, sends=1)
    due = lambda seconds, depth: [pk for _, pk in outbox_due(  # noqa: E731
        [work_outboxes()[0]], now=now + timedelta(seconds=seconds), queue_depth=depth)]
    assert due(5, 0) == []  # just sent: a worker may be taking it
    assert due(15, 0) == [match.pk]  # the queue lost it
    assert due(15, 1) == []  # its message is still in the queue
    assert due(15, None) == []  # the broker cannot say: wait for the backoff
    assert due(31, None) == [match.pk]
    Match.objects.filter(pk=match.pk).update(sends=3)  # sent three times already: wait 4 x 30 s, at most 100 s
    assert due(90, 5) == [] and due(101, 5) == [match.pk]


def test_the_broker_says_how_many_messages_wait_in_the_queue(db, redis_server):
    with celery_broker(redis_server.url):
        from arena.celery import app

        assert broker_queue_depth() == 0
        app.send_task("arena.matchmaking_tick")
        assert broker_queue_depth() == 1
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        assert broker_queue_depth() is None


def test_the_web_upload_form_works_while_the_broker_is_down(transactional_db, client, owner, game_id):
    from tests.conftest import PASSWORD

    client.login(username=owner.username, password=PASSWORD)
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        response = client.post("/bots/new/", {"name": "form-upload", "game": game_id, "file": py_upload()})
    assert response.status_code == 302, response.content[:2000]
    version = BotVersion.objects.get(bot__name="form-upload")
    assert version.status == "pending" and not Match.objects.filter(seats__bot_version=version).exists()


def test_the_admin_requeues_a_failed_match_while_the_broker_is_down(transactional_db, admin_client, make_bot,
                                                                   game_id):
    from arena.matches.services import match_create

    a, b = make_bot("ad-one", game_id), make_bot("ad-two", game_id)
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):
        match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
        Match.objects.filter(pk=match.pk).update(status="failed", attempts=3)
        response = admin_client.post("/admin/matches/match/", {"action": "requeue", "_selected_action": [match.pk]})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == "queued" and match.sent_at is None


def test_work_committed_a_moment_ago_is_left_to_its_own_send(make_bot, game_id):
    from arena.matches.services import match_create

    a, b = make_bot("new-one", game_id), make_bot("new-two", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
    now = timezone.now()
    assert outbox_due(work_outboxes(), now=now, queue_depth=0) == []
    assert [pk for _, pk in outbox_due(work_outboxes(), now=now + timedelta(seconds=3), queue_depth=0)] == [match.pk]
