"""Luck of finished matches, measured on the workers after they are recorded (docs/luck.md).

``arena.luck_sweep`` runs on the beat: it measures the done matches whose luck has not been
measured yet (``Match.luck_measured_at`` is None), newest first, for at most
``LUCK_SWEEP_SECONDS`` a run, and records each seat's luck (``MatchSeat.luck``) with
``match_record_luck``. When none waits, it measures again, newest first, the matches whose luck
was measured by another model than today's (``Match.luck_model`` is not ``workers.luck.LUCK_MODEL``:
V's weights or the method changed), so that a ladder reads one V. The recording of a match never
waits for it; the database is the work list, so a sweep that dies, a worker that is lost or a
broker that is down only delays the measure to the next sweep, and two sweeps measuring one
match record it once. A match whose replay cannot be measured (none stored, or it no longer
re-simulates) is marked and not tried again. Per-step luck is not stored: the match page asks for it (``match_luck_steps``).

A match is measured only once its chance is public (``match_chance_open`` is False: no game that
shares its seed or chance set is still to be played). Luck is derived from the dice, so a stored
figure (and the bot page's mean luck, which sums them) would otherwise tell something of the chance
of a rotation group's, a tournament round's or an A/B test's games still to come.
"""

from __future__ import annotations

import logging
import time

from celery import shared_task
from django.conf import settings
from django.db.models import Q

from arena.matches.models import Match
from arena.matches.replay_store import StoredReplayError, unpack
from arena.matches.selectors import with_chance_state
from arena.matches.services import match_record_luck
from workers.luck import LUCK_MODEL, luck_of_game
from workers.replay import joint_actions

log = logging.getLogger(__name__)


def _measurable():
    """Done matches not measured yet whose chance is public (no game sharing it still to play);
    smoke tests are not measured (their luck shows nowhere)."""
    return with_chance_state(Match.objects.filter(status=Match.Status.DONE, luck_measured_at__isnull=True)
                             .exclude(kind=Match.Kind.SMOKE)).filter(chance_open=False)


def _stale():
    """Done matches whose luck another model measured (their chance was public then, so it is now);
    ``<`` or ``>`` rather than ``!=`` so that the ``match_luck_model`` index serves it."""
    return (Match.objects.filter(status=Match.Status.DONE, luck_measured_at__isnull=False)
            .filter(Q(luck_model__lt=LUCK_MODEL) | Q(luck_model__gt=LUCK_MODEL)))


def measure_match_luck(match_id: int) -> str:
    """Measure and record one done match's luck: ``"measured"``, ``"unmeasurable"`` (marked, with
    a warning in the log) or ``"skipped"`` (not done, measured before by today's model, or its
    chance still private)."""
    fields = ("id", "game", "seed", "options", "replay")
    match = (_measurable().filter(pk=match_id).only(*fields).first()
             or _stale().filter(pk=match_id).only(*fields).first())
    if match is None:
        return "skipped"
    try:
        replay = unpack(match.replay)
        luck = luck_of_game(replay["game"], num_players=replay["num_players"], seed=replay["seed"],
                            options=replay.get("options"), actions=joint_actions(replay))
    except (StoredReplayError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.warning("the luck of match %s cannot be measured: %s: %s", match_id, type(exc).__name__, exc)
        match_record_luck(match_id=match_id, luck=None)
        return "unmeasurable"
    return "measured" if match_record_luck(match_id=match_id, luck=luck) else "skipped"


@shared_task(name="arena.luck_sweep", soft_time_limit=settings.LUCK_SWEEP_SECONDS + 60,
             time_limit=settings.LUCK_SWEEP_SECONDS + 90)
def luck_sweep() -> int:
    """Measure the luck of unmeasured done matches, newest first, then of those another model
    measured, for at most ``LUCK_SWEEP_SECONDS``; returns how many were measured."""
    deadline = time.monotonic() + settings.LUCK_SWEEP_SECONDS
    measured = 0
    while time.monotonic() < deadline:
        ids = (list(_measurable().order_by("-id").values_list("id", flat=True)[:20])
               or list(_stale().order_by("-id").values_list("id", flat=True)[:20]))
        if not ids:
            break
        for match_id in ids:
            if time.monotonic() >= deadline:
                break
            measured += measure_match_luck(match_id) == "measured"
    return measured
