"""`make run`'s demo schedules one tournament a few minutes ahead, once."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from arena.tournaments.models import Tournament
from arena.tournaments.services import tournaments_tick

pytestmark = pytest.mark.django_db


def test_the_demo_schedules_a_tournament_of_the_ladders_bots_a_few_minutes_ahead(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    out = StringIO()
    call_command("arena_demo", stdout=out)
    demo = Tournament.objects.get()
    assert demo.status == "scheduled" and demo.entry == "ladder" and demo.ladder.game == "deep_sea_adventure"
    assert timezone.now() + timedelta(minutes=2) < demo.start_at < timezone.now() + timedelta(minutes=4)
    assert f"/tournaments/{demo.slug}/" in out.getvalue()
    call_command("arena_demo", stdout=StringIO())
    assert Tournament.objects.count() == 1
    # Meanwhile the worker smoke-tests the starter kit; it enters with the built-in bots.
    from arena.bots.models import BotVersion
    from arena.runs.smoke import bot_version_record_smoke_test
    from tests.factories import clean_outcome

    kit = BotVersion.objects.get(bot__name="deep-sea-adventure-starter")
    bot_version_record_smoke_test(version_id=kit.pk, outcome=clean_outcome("deep_sea_adventure", 2))
    tournaments_tick(now=demo.start_at)
    demo.refresh_from_db()
    assert demo.status == "running" and demo.entrants.count() == 3 and demo.round_set.count() == 1
