"""The Celery contract of issue 6: late acks, reject on a lost worker, prefetch 1, JSON, time
limits below the broker's visibility timeout, and the periodic tasks of the scheduler."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from arena.celery import app
from arena.runs.tasks import run_match, smoke_test_version

ROOT = Path(__file__).resolve().parents[2]


def test_match_and_smoke_test_tasks_come_back_when_their_worker_dies_and_have_time_limits():
    for task in (run_match, smoke_test_version):
        assert task.acks_late and task.reject_on_worker_lost
        assert 0 < task.soft_time_limit < task.time_limit


def test_a_worker_takes_one_message_at_a_time_and_speaks_only_json():
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_serializer == "json" and app.conf.accept_content == ["json"]


def test_the_scheduler_runs_matchmaking_the_recovery_sweep_the_batch_refit_the_tournaments_tick_luck_and_abtests():
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert scheduled == {"arena.matchmaking_tick", "arena.requeue_stuck", "arena.batch_refit",
                         "arena.tournaments_tick", "arena.luck_sweep", "arena.abtests_tick"}
    app.loader.import_default_modules()  # what a worker or beat does first: find arena/<app>/tasks.py
    assert scheduled <= set(app.tasks)


def test_the_recovery_sweep_runs_well_within_the_recovery_goal_and_stale_ticks_are_dropped():
    sweep = next(e for e in app.conf.beat_schedule.values() if e["task"] == "arena.requeue_stuck")
    assert sweep["schedule"] == settings.RECOVERY_INTERVAL <= 10
    assert settings.MATCH_LEASE_SECONDS + settings.RECOVERY_INTERVAL <= 30  # a lost worker is noticed in time
    for entry in app.conf.beat_schedule.values():  # a tick stuck behind matches is not run late
        assert entry["options"]["expires"] == entry["schedule"]


def test_workers_keep_database_connections_across_tasks_and_stop_softly():
    assert app.conf.db_reuse_max >= 100  # Celery's Django fixup then leaves connections open
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"]
    assert app.conf.worker_soft_shutdown_timeout > 0


def _settings_with(**env: str) -> subprocess.CompletedProcess:
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], s.MATCH_HARD_TIME_LIMIT)")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DJANGO_SETTINGS_MODULE": "arena.settings", **env})


def test_with_redis_the_visibility_timeout_outlasts_the_hard_time_limit():
    result = _settings_with(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", MATCH_SOFT_TIME_LIMIT="4000")
    visibility, hard = map(int, result.stdout.split())
    assert visibility > hard == 4060


def test_settings_refuse_a_visibility_timeout_shorter_than_a_match():
    result = _settings_with(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", CELERY_VISIBILITY_TIMEOUT="300")
    assert result.returncode != 0
    assert "CELERY_VISIBILITY_TIMEOUT must exceed MATCH_HARD_TIME_LIMIT" in result.stderr


def test_the_match_task_limits_come_from_the_settings():
    assert run_match.soft_time_limit == settings.MATCH_SOFT_TIME_LIMIT
    assert run_match.time_limit == settings.MATCH_HARD_TIME_LIMIT


def test_settings_refuse_a_lease_that_one_late_heartbeat_would_let_expire():
    result = _settings_with(MATCH_LEASE_SECONDS="6", MATCH_HEARTBEAT_SECONDS="5")
    assert result.returncode != 0
    assert "MATCH_LEASE_SECONDS must be at least twice MATCH_HEARTBEAT_SECONDS" in result.stderr


def test_the_embedded_broker_connects_without_a_warning_on_every_beat_tick(caplog):
    # kombu logs "No hostname was supplied. Reverting to default" on each connection of a URL
    # without a host: in `make run` that was a line every ten seconds in the newcomer's terminal.
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}
    code = ("import django, logging; django.setup(); logging.basicConfig(level=logging.WARNING)\n"
            "from arena.celery import app\n"
            "print(app.conf.broker_url); app.connection_for_write()._info()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**env, "DJANGO_SETTINGS_MODULE": "arena.settings"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("filesystem://")
    assert "No hostname" not in done.stderr


def test_the_scheduler_ticks_have_a_queue_of_their_own_that_every_worker_consumes():
    # One queue held matches and ticks: with 50 matches queued, the recovery sweep (dropped after 5 s
    # in the queue) waited behind them, and a killed worker's matches were re-queued after 45 s, not 21.
    worker_queues = set(app.amqp.queues)  # what `celery worker` without -Q consumes
    for entry in app.conf.beat_schedule.values():
        queue = app.amqp.router.route(dict(entry["options"]), entry["task"])["queue"].name
        assert queue != app.conf.task_default_queue and queue in worker_queues, entry["task"]
    for task in (run_match, smoke_test_version):
        assert app.amqp.router.route({}, task.name)["queue"].name == app.conf.task_default_queue
    keys = [(q.exchange.name, q.routing_key) for q in app.amqp.queues.values()]
    assert len(set(keys)) == len(keys)  # no two queues bound under one key: a message goes to one


def test_a_match_message_lands_in_the_work_queue_only_and_a_tick_in_the_tick_queue_only(tmp_path):
    from tests.platform.brokers import PrivateRedis, celery_broker

    redis = PrivateRedis(tmp_path).start()
    try:
        with celery_broker(redis.url, queue=app.conf.task_default_queue) as queue:
            run_match.apply_async(args=[0])
            sweep = next(e for e in app.conf.beat_schedule.values() if e["task"] == "arena.requeue_stuck")
            app.send_task(sweep["task"], **sweep["options"])  # as beat sends it
            assert (redis.queue_length(queue), redis.queue_length(settings.ARENA_TICK_QUEUE)) == (1, 1)
    finally:
        redis.stop()
