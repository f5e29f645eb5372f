"""The recovery sweep warns when something went wrong, not for routine re-sends to a busy queue
(a healthy `make run` logged "recovery:" warnings every few seconds, issue 25)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from arena.matches.models import Match
from arena.runs.recovery import recovery_sweep


def _waiting_match(make_bot, game_id, sent_seconds_ago: int, now):
    from arena.matches.services import match_create

    a, b = make_bot("one", game_id), make_bot("two", game_id)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], kind="challenge")
    Match.objects.filter(pk=match.pk).update(sent_at=now - timedelta(seconds=sent_seconds_ago), sends=1,
                                             queued_at=now - timedelta(seconds=sent_seconds_ago))
    return match


@override_settings(OUTBOX_LOST_GRACE=10, OUTBOX_RESEND_AFTER=30, OUTBOX_RESEND_MAX=100)
def test_a_back_off_re_send_to_a_busy_queue_is_logged_as_info_not_as_a_warning(make_bot, game_id, caplog):
    now = timezone.now()
    match = _waiting_match(make_bot, game_id, 40, now)
    with caplog.at_level(logging.INFO, logger="arena.runs.recovery"):
        report = recovery_sweep(now=now, queue_depth=5, ask_broker=False)   # five messages wait: none lost
    assert report.sent == [("arena.run_match", match.pk)]
    levels = [r.levelno for r in caplog.records if r.name == "arena.runs.recovery"]
    assert levels == [logging.INFO]


@override_settings(OUTBOX_LOST_GRACE=10, OUTBOX_RESEND_AFTER=30, OUTBOX_RESEND_MAX=100)
def test_a_message_the_queue_lost_is_still_a_warning(make_bot, game_id, caplog):
    now = timezone.now()
    match = _waiting_match(make_bot, game_id, 15, now)
    with caplog.at_level(logging.INFO, logger="arena.runs.recovery"):
        report = recovery_sweep(now=now, queue_depth=0, ask_broker=False)   # the queue is empty: lost
    assert report.sent == [("arena.run_match", match.pk)]
    assert [r.levelno for r in caplog.records if r.name == "arena.runs.recovery"] == [logging.WARNING]
