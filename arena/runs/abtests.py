"""The A/B tests' tick: every ``ABTEST_INTERVAL`` seconds the beat sends ``arena.abtests_tick``,
which advances every open test (``arena.abtests.services.abtest_advance``): the database is the
work list, so a lost or doubled tick only delays or repeats a harmless step."""

from __future__ import annotations

from celery import shared_task

from arena.abtests.services import abtests_advance_open


@shared_task(name="arena.abtests_tick", soft_time_limit=60, time_limit=90)
def abtests_tick() -> int:
    """Advance every open A/B test; returns how many were looked at."""
    return abtests_advance_open()
