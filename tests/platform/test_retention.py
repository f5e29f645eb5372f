"""Retention (docs/retention.md): old finished challenges and A/B test games lose their replays and
seat logs, versions
that can never play again their archives, old rating snapshots all but each rating's first and the
last of each day; ladder and tournament matches, unfinished matches, what
is newer than the cutoff and whatever ``ratings_check`` reads are never touched."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from arena.bots.models import BotVersion
from arena.ladders.models import Rating, RatingSnapshot
from arena.ladders.services import ladder_create
from arena.matches.models import Match, MatchSeat
from arena.matches.services import match_create
from arena.runs.recording import match_record_outcome
from arena.runs.retention import RetentionReport, prunable_archives, prunable_snapshots, retention_prune
from tests.factories import summary_outcome as _outcome

ROOT = Path(__file__).resolve().parents[2]
REPLAY = gzip.compress(json.dumps({"format": "dive-arena-replay", "version": 2}).encode())
OLD = timedelta(days=400)


def _played(versions, *, kind="challenge", ladder=None, requested_by=None, age=OLD, status="done"):
    match = match_create(game=versions[0].bot.game, versions=versions, kind=kind, ladder=ladder,
                         requested_by=requested_by)
    outcome = _outcome(versions[0].bot.game, len(versions), faults=[
        {"seat": 1, "kind": "crash", "step": 2, "message": "the bot exited\nsecret stderr line"}])
    outcome["ranks"] = [1, 2]
    match_record_outcome(match_id=match.pk, outcome=outcome, replay=REPLAY, worker="test")
    Match.objects.filter(pk=match.pk).update(finished_at=timezone.now() - age, status=status)
    return Match.objects.get(pk=match.pk)


def _state(match) -> tuple:
    """Everything retention could touch of a match, and what the ratings are made of."""
    match = Match.objects.get(pk=match.pk)
    seats = [(s.score, s.rank, s.fault_kind, s.fault_step, s.fault_message, s.timing, s.log)
             for s in MatchSeat.objects.filter(match=match).order_by("seat")]
    return (bytes(match.replay) if match.replay is not None else None, match.status, seats,
            sorted(match.rating_changes.values_list("bot_id", "before", "after", "sequence")))


@pytest.fixture
def world(owner, other_user, ladder, ready_bot):
    alpha, bravo = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    versions = [alpha.active_version, bravo.active_version]
    return {
        "old_challenge": _played(versions, requested_by=owner),
        "new_challenge": _played(versions, requested_by=owner, age=timedelta(days=3)),
        "old_abtest_game": _played(versions, kind="abtest", requested_by=owner),
        "new_abtest_game": _played(versions, kind="abtest", requested_by=owner, age=timedelta(days=3)),
        "old_ladder": _played(versions, kind="ladder", ladder=ladder),
        "old_tournament": _played(versions, kind="tournament"),
        "old_running_challenge": _played(versions, requested_by=owner, status="running"),
        "alpha": alpha, "bravo": bravo, "ladder": ladder,
    }


KEPT = ["new_challenge", "new_abtest_game", "old_ladder", "old_tournament", "old_running_challenge"]
PRUNED = ["old_challenge", "old_abtest_game"]


def test_without_apply_nothing_changes_and_it_says_what_would_go(world, capsys):
    before = {name: _state(world[name]) for name in [*PRUNED, *KEPT]}
    call_command("arena_prune", "--days", "180")
    out = capsys.readouterr().out
    assert "would prune 2 replay(s)" in out and "4 seat log(s)" in out
    assert "dry run: nothing was changed" in out
    assert {name: _state(world[name]) for name in before} == before


def test_an_old_challenge_or_abtest_game_loses_its_replay_and_logs_and_nothing_else_is_touched(world, capsys):
    before = {name: _state(world[name]) for name in KEPT}
    olds = {name: _state(world[name]) for name in PRUNED}
    call_command("ratings_check")  # consistent before
    call_command("arena_prune", "--days", "180", "--apply")
    assert "pruned 2 replay(s), 4 seat log(s), cut 2 fault message(s)" in capsys.readouterr().out
    for name, old in olds.items():
        replay, status, seats, changes = _state(world[name])
        assert replay is None and status == "done" and changes == old[3]
        assert [s[-1] for s in seats] == ["", ""]                                   # logs gone
        assert seats[1][4] == "the bot exited"                                     # the arena's reason stays
        assert [s[:4] + (s[5],) for s in seats] == [s[:4] + (s[5],) for s in old[2]]  # results and timing stay
    assert {name: _state(world[name]) for name in KEPT} == before
    call_command("ratings_check")  # exits 1 (SystemExit) on any difference: still consistent
    # Idempotent: a second run finds nothing more.
    assert retention_prune(days=180, apply=True) == RetentionReport(applied=True)


def test_the_cutoff_spares_what_is_newer(world):
    report = retention_prune(days=500, apply=True)
    assert report.replays == 0 and report.logs == 0
    assert Match.objects.get(pk=world["old_challenge"].pk).replay is not None
    assert Match.objects.get(pk=world["old_abtest_game"].pk).replay is not None
    with pytest.raises(ValueError, match="at least one day"):
        retention_prune(days=0)
    with pytest.raises(CommandError, match="at least one day"):
        call_command("arena_prune", "--days", "0")


def _new_version(bot, bot_upload, content: bytes) -> BotVersion:
    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_record_smoke_test
    from tests.factories import summary_outcome as outcome

    version = bot_version_create(bot=bot, upload=bot_upload(content))
    bot_version_record_smoke_test(version_id=version.pk, outcome=outcome(bot.game, 2))
    bot.refresh_from_db()
    return BotVersion.objects.get(pk=version.pk)


def test_only_archives_that_can_never_play_again_are_emptied(world, bot_upload, ready_bot, other_user, capsys):
    alpha, bravo = world["alpha"], world["bravo"]
    bravo_v1 = bravo.active_version
    charlie = ready_bot("charlie", user=other_user)
    charlie_v1 = charlie.active_version
    # A new version of each: v1 is superseded (and would never play again).
    _new_version(alpha, bot_upload, b"# alpha v2\n" + bot_upload().read())
    _new_version(bravo, bot_upload, b"# bravo v2\n" + bot_upload().read())
    _new_version(charlie, bot_upload, b"# charlie v2\n" + bot_upload().read())
    BotVersion.objects.update(created_at=timezone.now() - OLD)
    # bravo's v1 still has a queued match to play; alpha's v1 played only old matches (a tournament
    # among them: kept); charlie's v1 played nothing open and no tournament.
    match_create(game=alpha.game, versions=[bravo_v1, alpha.active_version], kind="challenge",
                 requested_by=other_user)
    assert {v.pk for v in prunable_archives(cutoff=timezone.now() - timedelta(days=180))} == {charlie_v1.pk}
    call_command("arena_prune", "--days", "180", "--archives")
    assert "would prune 1 archive(s)" in capsys.readouterr().out
    report = retention_prune(days=180, apply=True, archives=True)
    assert report.archives == 1
    archives = dict(BotVersion.objects.values_list("pk", "archive"))
    assert bytes(archives[charlie_v1.pk]) == b""
    assert all(bytes(archives[pk]) for pk in archives if pk != charlie_v1.pk)   # actives, queued, tournament
    # Were it ever seated again, the match fails with the reason instead of running an empty bot.
    from arena.matches.seating import seat_spec

    with pytest.raises(ValueError, match="pruned by retention"):
        seat_spec(BotVersion.objects.get(pk=charlie_v1.pk), Path("/nonexistent"))


def test_archives_are_kept_unless_asked_for(world, bot_upload):
    _new_version(world["alpha"], bot_upload, b"# alpha v2\n" + bot_upload().read())
    BotVersion.objects.update(created_at=timezone.now() - OLD)
    assert retention_prune(days=180, apply=True).archives == 0
    assert all(bytes(a) for a in BotVersion.objects.values_list("archive", flat=True))


def test_the_beat_task_is_off_by_default_and_on_with_the_setting(tmp_path):
    code = "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'arena.settings'); django.setup(); " \
           "from django.conf import settings; print(sorted(settings.CELERY_BEAT_SCHEDULE))"
    env = {"PATH": "/usr/bin:/bin", "ARENA_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3"}
    off = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    on = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "RETENTION_ENABLED": "1"},
                        capture_output=True, text=True)
    assert "retention" not in off.stdout and "matchmaking" in off.stdout, off.stderr
    assert "'retention'" in on.stdout, on.stderr


def test_the_task_applies_the_settings(world, settings):
    from arena.runs.tasks import retention_prune as task

    settings.RETENTION_DAYS = 180
    settings.RETENTION_ARCHIVES = False
    assert task.apply().get()["replays"] == 2
    assert Match.objects.get(pk=world["old_challenge"].pk).replay is None
    assert Match.objects.get(pk=world["old_ladder"].pk).replay is not None
    assert task.apply().get()["replays"] == 0


def test_a_version_frozen_by_a_tournament_keeps_its_archive(world, bot_upload, ready_bot, other_user):
    from arena.tournaments.models import Entrant, Tournament

    dana = ready_bot("dana", user=other_user)
    frozen = dana.active_version
    _new_version(dana, bot_upload, b"# dana v2\n" + bot_upload().read())
    BotVersion.objects.update(created_at=timezone.now() - OLD)
    assert frozen.pk in {v.pk for v in prunable_archives(cutoff=timezone.now() - timedelta(days=180))}
    cup = Tournament.objects.create(name="Cup", slug="cup", game=dana.game, seat_count=2, format="swiss", rounds=3,
                                    start_at=timezone.now(), status="running")
    Entrant.objects.create(tournament=cup, bot=dana, name=dana.name, version=frozen)
    assert retention_prune(days=180, apply=True, archives=True).archives == 0
    assert bytes(BotVersion.objects.get(pk=frozen.pk).archive)


# --- rating snapshots ------------------------------------------------------------------------


@pytest.fixture
def histories(arena):
    """Rating snapshots of three ratings: alpha's and bravo's on the duel ladder, alpha's on a
    second ladder. Returns their ids by name, ``now``, ``old`` (a midnight 100 days ago, UTC),
    ``recent`` (one two days ago: a 30-day window keeps only the recent ones whole) and the arena."""
    now = timezone.now()
    old = (now - timedelta(days=100)).replace(hour=0, minute=0, second=0, microsecond=0)
    recent = (now - timedelta(days=2)).replace(hour=0, minute=0, second=0, microsecond=0)
    other = ladder_create(slug="duel-b", name="Second duel ladder", game=arena["ladder"].game, seat_count=2)
    ratings = {"alpha": Rating.objects.get(ladder=arena["ladder"], bot=arena["alpha"]),
               "bravo": Rating.objects.get(ladder=arena["ladder"], bot=arena["bravo"]),
               "alpha_other": Rating.objects.get(ladder=other, bot=arena["alpha"])}
    hours = {
        # Three old days (the first with the rating's first snapshot), then three recent ones on one day.
        "alpha": [old + timedelta(hours=h) for h in (0.5, 6, 23.99, 32, 36, 44, 82)]
        + [recent + timedelta(hours=h) for h in (1, 2, 3)],
        # Only old ones: its latest (14:00 on its second day) is old too.
        "bravo": [old + timedelta(hours=h) for h in (9, 10, 11, 37, 38)],
        # One a day, at times alpha's days have later ones: thinning is per rating.
        "alpha_other": [old + timedelta(hours=h) for h in (5, 29, 53)],
    }
    RatingSnapshot.objects.bulk_create(
        RatingSnapshot(rating=ratings[name], fitted_at=at, value=1300 + i, low=1250 + i, high=1350 + i, games=10 + i)
        for name, times in hours.items() for i, at in enumerate(times))
    return {"now": now, "old": old, "recent": recent, "arena": arena,
            **{name: rating.pk for name, rating in ratings.items()}}


def _history(rating_id) -> list:
    return list(RatingSnapshot.objects.filter(rating_id=rating_id).order_by("fitted_at")
                .values_list("fitted_at", flat=True))


def _kept(histories) -> dict:
    """What thinning keeps of the fixture's snapshots, each rating's oldest first."""
    old, recent = histories["old"], histories["recent"]
    return {
        "alpha": [old + timedelta(hours=h) for h in (0.5, 23.99, 44, 82)]
        + [recent + timedelta(hours=h) for h in (1, 2, 3)],
        "bravo": [old + timedelta(hours=h) for h in (9, 11, 38)],
        "alpha_other": [old + timedelta(hours=h) for h in (5, 29, 53)],
    }


def test_old_snapshots_are_thinned_to_the_last_of_each_day_and_each_ratings_first(histories):
    report = retention_prune(days=180, snapshot_days=30, apply=True, now=histories["now"])
    assert report == RetentionReport(snapshots=5, applied=True)
    assert {name: _history(histories[name]) for name in ("alpha", "bravo", "alpha_other")} == _kept(histories)
    # Each rating's latest (the bot page's "now", what the next refit compares with) stays: bravo's is old.
    assert _history(histories["bravo"])[-1] == histories["old"] + timedelta(hours=38)
    # Idempotent: a second run finds nothing more.
    assert retention_prune(days=180, snapshot_days=30, apply=True, now=histories["now"]) == RetentionReport(
        applied=True)
    assert not prunable_snapshots(cutoff=histories["now"] - timedelta(days=30)).exists()


def test_snapshots_newer_than_the_window_and_without_the_setting_are_all_kept(histories):
    before = RatingSnapshot.objects.count()
    assert retention_prune(days=180, apply=True, now=histories["now"]).snapshots == 0          # not asked
    assert retention_prune(days=180, snapshot_days=101, apply=True, now=histories["now"]).snapshots == 0
    assert RatingSnapshot.objects.count() == before == 18
    with pytest.raises(ValueError, match="at least one day"):
        retention_prune(days=180, snapshot_days=0)
    with pytest.raises(CommandError, match="at least one day"):
        call_command("arena_prune", "--snapshot-days", "0")


def test_the_command_says_how_many_snapshots_would_go_then_thins_them(histories, capsys):
    call_command("arena_prune", "--snapshot-days", "30")
    out = capsys.readouterr().out
    assert "rating snapshots taken more than 30 days ago: would prune 5 snapshot(s)" in out
    assert RatingSnapshot.objects.count() == 18
    call_command("arena_prune", "--snapshot-days", "30", "--apply")
    assert "rating snapshots taken more than 30 days ago: pruned 5 snapshot(s)" in capsys.readouterr().out
    assert {name: _history(histories[name]) for name in ("alpha", "bravo", "alpha_other")} == _kept(histories)


def test_the_task_thins_snapshots_with_the_setting(histories, settings):
    from arena.runs.tasks import retention_prune as task

    settings.RETENTION_SNAPSHOT_DAYS = 30
    assert task.apply().get()["snapshots"] == 5
    assert task.apply().get()["snapshots"] == 0


def test_the_bot_page_still_charts_the_whole_history_after_thinning(histories):
    retention_prune(days=180, snapshot_days=30, apply=True, now=histories["now"])
    page = Client().get(f"/bots/{histories['arena']['alpha'].pk}/").content.decode()
    found = re.search(r'<script id="rating-charts" type="application/json">(.*?)</script>', page, re.S)
    official = json.loads(found.group(1))["duel"]["official"]
    kept = list(RatingSnapshot.objects.filter(rating_id=histories["alpha"]).order_by("fitted_at"))
    assert official["t"] == [round(s.fitted_at.timestamp(), 3) for s in kept]
    assert official["t"][0] == round((histories["old"] + timedelta(hours=0.5)).timestamp(), 3)   # its first
    assert official["v"] == [1300, 1302, 1305, 1306, 1307, 1308, 1309]
    assert "Official rating (95 % interval dashed) and live Elo" in page
    assert "(now 1309;" in page
