"""Leases and their heartbeat against the real database: a running match stays leased while its
worker lives, and a worker that lost it notices."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings

from arena.matches.models import Match
from arena.matches.services import match_claim, match_create, match_heartbeat, match_reclaim


@pytest.fixture
def running(transactional_db, make_bot, game_id):
    a, b = make_bot("hb-one", game_id), make_bot("hb-two", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
    return match_claim(match_id=match.pk, worker="w1")


def _wait(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@override_settings(MATCH_HEARTBEAT_SECONDS=0.1, MATCH_LEASE_SECONDS=30)
def test_the_heartbeat_keeps_pushing_the_lease_of_a_running_match_forward(running):
    first = running.lease_expires_at
    with match_heartbeat(match_id=running.pk, attempt=running.attempts) as heartbeat:
        assert _wait(lambda: heartbeat.beats >= 2)
    renewed = Match.objects.get(pk=running.pk).lease_expires_at
    assert renewed > first and not heartbeat.lost
    beats = heartbeat.beats
    time.sleep(0.3)
    assert heartbeat.beats == beats  # the block ended: no more renewals
    assert Match.objects.get(pk=running.pk).lease_expires_at == renewed


@override_settings(MATCH_HEARTBEAT_SECONDS=0.1)
def test_a_worker_whose_match_was_taken_over_sees_it_has_lost_the_lease(running):
    with match_heartbeat(match_id=running.pk, attempt=running.attempts) as heartbeat:
        match_reclaim(match_id=running.pk, worker="w2", gone="w1")
        assert _wait(lambda: heartbeat.lost)
    assert Match.objects.get(pk=running.pk).worker == "w2"
