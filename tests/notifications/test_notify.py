"""What authors are told (arena/runs/notify.py), once each, in the feed and by e-mail as they chose."""

from __future__ import annotations

from django.core import mail

from arena.matches.models import Match
from arena.matches.services import match_create
from arena.matches.signals import match_finished
from arena.notifications.models import Kind, Notification
from arena.notifications.services import notification_send, notifications_mark_read, preferences_set
from arena.runs import notify
from arena.runs.recording import match_record_failure, match_record_outcome
from tests.factories import clean_outcome

DSA = "deep_sea_adventure"


def _finish(match, outcome):
    assert match_record_outcome(match_id=match.pk, outcome=outcome)
    match_finished.send_robust(sender=None, match_id=match.pk)   # as the match task does after commit


def test_a_challenge_that_ends_tells_whoever_asked_once_in_the_feed(make_bot, owner, other_user):
    mine, theirs = make_bot("mine", DSA), make_bot("theirs", DSA, user=other_user)
    match = match_create(game=DSA, versions=[mine.active_version, theirs.active_version], kind=Match.Kind.CHALLENGE,
                         requested_by=owner)
    _finish(match, clean_outcome(DSA, 2, [1, 2]))
    match_finished.send_robust(sender=None, match_id=match.pk)   # a redelivered task: nothing new
    [row] = Notification.objects.filter(user=owner)
    assert row.kind == Kind.CHALLENGE_ENDED and f"match #{match.pk}" in row.title and row.url == f"/matches/{match.pk}/"
    assert "seat 0: mine v1, score" in row.body and not row.is_read
    assert not Notification.objects.filter(user=other_user).exists()   # bob did not ask for it
    assert mail.outbox == []   # a challenge is told in the site only unless chosen


def test_a_failed_challenge_says_it_could_not_be_played(make_bot, owner, settings):
    mine, other = make_bot("mine", DSA), make_bot("other", DSA)
    match = match_create(game=DSA, versions=[mine.active_version, other.active_version], kind=Match.Kind.CHALLENGE,
                         requested_by=owner)
    Match.objects.filter(pk=match.pk).update(attempts=settings.MATCH_MAX_ATTEMPTS)   # its last attempt
    assert match_record_failure(match_id=match.pk, error="Traceback\nRuntimeError: no seat could start") == "failed"
    match_finished.send_robust(sender=None, match_id=match.pk)
    row = Notification.objects.get(user=owner)
    assert "could not be played" in row.title and "RuntimeError: no seat could start" in row.body


def test_a_version_that_fails_its_smoke_test_tells_its_owner_in_the_feed_and_by_e_mail(make_bot, owner):
    from arena.bots.models import BotVersion

    bot = make_bot("mine", DSA)
    BotVersion.objects.filter(bot=bot).update(status=BotVersion.Status.FAILED, validation_log="SyntaxError: line 3")
    version = bot.versions.get()
    notify.after_version_judged(sender=None, version_id=version.pk)
    notify.after_version_judged(sender=None, version_id=version.pk)
    row = Notification.objects.get(user=owner)
    assert row.kind == Kind.VERSION_FAILED and "mine v1 failed its smoke test" in row.title and "SyntaxError" in row.body
    assert row.emailed and len(mail.outbox) == 1
    assert mail.outbox[0].to == ["alice@example.com"] and "SyntaxError: line 3" in mail.outbox[0].body
    assert f"/bots/{bot.pk}/" in mail.outbox[0].body


def test_a_kind_switched_off_is_not_told_and_e_mail_only_goes_to_the_outbox(make_bot, owner):
    from arena.bots.models import BotVersion

    preferences_set(user=owner, choices={"version_failed": {"site": False, "email": True}})
    bot = make_bot("mine", DSA)
    BotVersion.objects.filter(bot=bot).update(status=BotVersion.Status.FAILED)
    notify.after_version_judged(sender=None, version_id=bot.versions.get().pk)
    assert Notification.objects.get(user=owner).is_read   # kept (once), but not in the bell
    assert len(mail.outbox) == 1
    preferences_set(user=owner, choices={"version_failed": {"email": False}})
    notification_send(user=owner, kind=Kind.VERSION_FAILED, key="version:other", title="t")
    assert Notification.objects.filter(user=owner).count() == 1 and len(mail.outbox) == 1


def test_an_automatic_pause_tells_the_owner_once_per_pause(make_bot, owner, settings):
    from arena.bots.models import BotVersion

    mine, other = make_bot("mine", DSA), make_bot("other", DSA)
    match = match_create(game=DSA, versions=[mine.active_version, other.active_version], kind=Match.Kind.CHALLENGE,
                         requested_by=owner)
    _finish(match, clean_outcome(DSA, 2, [1, 2]))
    assert not Notification.objects.filter(kind=Kind.BOT_PAUSED).exists()
    from django.utils import timezone

    BotVersion.objects.filter(pk=mine.active_version_id).update(paused_at=timezone.now(), pause_reason="8 faults in 10 matches")
    match_finished.send_robust(sender=None, match_id=match.pk)
    match_finished.send_robust(sender=None, match_id=match.pk)
    [row] = Notification.objects.filter(kind=Kind.BOT_PAUSED)
    assert row.user == owner and "mine v1 was paused" in row.title and row.body == "8 faults in 10 matches"


def test_a_bot_faulting_in_a_tournament_is_told_per_game_and_signalled_to_owner_and_staff_when_mostly(
        make_bot, owner, other_user, staff):
    from arena.tournaments.services import tournament_advance, tournament_create, tournament_start

    bots = [make_bot("faulty", DSA)] + [make_bot(f"t{i}", DSA, user=other_user) for i in range(3)]
    tournament = tournament_create(name="Cup", game=DSA, seat_count=2, format="round_robin", rounds=3, bots=bots)
    tournament_start(tournament_id=tournament.pk)
    faulty = bots[0]
    for _ in range(30):
        for match in Match.objects.filter(kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED).order_by("id"):
            seat = next((s.seat for s in match.seats.all() if s.bot_version.bot_id == faulty.pk), None)
            outcome = clean_outcome(DSA, 2, [2, 1] if seat == 0 else [1, 2])
            if seat is not None:
                outcome["faults"] = [{"seat": seat, "kind": "crash", "step": 3, "message": "boom"}]
            _finish(match, outcome)
        tournament_advance(tournament_id=tournament.pk)
        tournament.refresh_from_db()
        if tournament.status == "finished":
            break
    played = Match.objects.filter(kind=Match.Kind.TOURNAMENT, status=Match.Status.DONE, seats__bot_version__bot=faulty).count()
    assert played >= notify.SIGNAL_MIN_GAMES
    per_game = Notification.objects.filter(user=owner, kind=Kind.TOURNAMENT_FAULT)
    assert per_game.count() == played and all("faulty faulted in Cup" in n.title for n in per_game)
    signals = Notification.objects.filter(kind=Kind.TOURNAMENT_SIGNAL)
    assert sorted(n.user.username for n in signals) == ["alice", "carol"]    # the owner and the staff, once each
    assert all(n.url == f"/tournaments/{tournament.slug}/" and "faulted in" in n.title for n in signals)
    assert not Notification.objects.filter(user=other_user).exists()   # bob's bots did not fault


def test_marking_read_changes_only_the_users_own(owner, other_user):
    mine = notification_send(user=owner, kind=Kind.CHALLENGE_ENDED, key="a", title="a")
    theirs = notification_send(user=other_user, kind=Kind.CHALLENGE_ENDED, key="a", title="b")
    assert notifications_mark_read(user=owner, ids=[mine.pk, theirs.pk]) == 1
    theirs.refresh_from_db()
    assert not theirs.is_read
