"""Chance privacy (issue 26.3): whatever reveals the chance of a game still to be played — its seed,
its replay, the seats' logs and fault messages — stays private to everyone but staff (owners
included) until every game sharing that chance has been played. Each kind of set that shares
chance is checked through the API (detail, lists, replays, logs) and the pages (match page, log,
replay download, the viewer's full replay), before and after its last game."""

from __future__ import annotations

import gzip
import json

import pytest
from django.test import Client

from arena.matches.models import Match, MatchGroup
from arena.matches.services import match_group_create
from arena.runs.recording import match_groups_settle, match_record_outcome
from arena.tournaments.services import tournament_cancel, tournament_create, tournament_pause, tournament_resume, \
    tournament_start
from tests.api.helpers import client_as
from tests.conftest import PASSWORD
from tests.factories import clean_outcome
from tests.tournaments.conftest import DSA, six_bots  # noqa: F401 (six_bots: a fixture)

# Every door is asked of every game, anonymously too, many times a test: the anonymous budgets
# (tests/api/test_throttling.py) would answer 429 part-way.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("anonymous_reads_unthrottled")]

SECRET = "rolls seen: 3 5 1"   # what a bot that logs its chance writes to stderr


def secret(match: Match) -> str:
    return f"{SECRET} in match {match.pk}"


def record(match: Match) -> None:
    """Record ``match`` as a worker does: seat 0 faulted (its message quotes stderr), logs, a replay."""
    seats = match.seats.count()
    outcome = clean_outcome(match.game, seats, faults=[
        {"seat": 0, "kind": "crash", "step": 2, "message": f"Traceback: {secret(match)}"}])
    outcome["logs"] = [f"{secret(match)} (seat {s})" for s in range(seats)]
    replay = gzip.compress(json.dumps({"format": "dive-arena-replay", "seed": match.seed}).encode())
    assert match_record_outcome(match_id=match.pk, outcome=outcome, replay=replay, worker="test-worker")


def page_client(user) -> Client:
    client = Client()
    if user is not None:
        assert client.login(username=user.username, password=PASSWORD)
    return client


def shows_chance(match: Match, user) -> dict:
    """What ``user`` learns of the done ``match``'s chance through every door: True per door when it
    shows the seed, the replay, a log or a fault message."""
    api, pages = client_as(user), page_client(user)
    detail = api.get(f"/api/matches/{match.pk}/").json()
    listed = (next(m for m in api.get(f"/api/matches/?group={match.group_id}").json()["results"] if m["id"] == match.pk)
              if match.group_id else detail)
    in_list = next((m for m in api.get(f"/api/matches/?game={match.game}&page_size=200").json()["results"]
                    if m["id"] == match.pk), listed)
    log = api.get(f"/api/matches/{match.pk}/logs/0/")
    page = pages.get(f"/matches/{match.pk}/").content.decode()
    return {
        "api seed": detail["seed"] is not None,
        "list seed": listed["seed"] is not None or in_list["seed"] is not None,
        "has_replay": detail["has_replay"] or listed["has_replay"],
        "has_log": detail["seats"][0]["has_log"] or listed["seats"][0]["has_log"],
        "fault message": detail["seats"][0]["fault"]["message"] is not None,
        "api replay": api.get(f"/api/matches/{match.pk}/replay/").status_code == 200,
        "api full replay": api.get(f"/api/matches/{match.pk}/replay/full/").status_code != 404,
        "api log": log.status_code == 200,
        "page seed": str(match.seed) in page,
        "page secret": secret(match) in page,
        "bot page secret": secret(match) in pages.get(f"/bots/{match.seats.get(seat=0).bot_version.bot_id}/").content.decode(),
        "page replay": pages.get(f"/matches/{match.pk}/replay.json").status_code == 200,
        "page full replay": pages.get(f"/matches/{match.pk}/replay.full.json").status_code != 404,
        "page log": pages.get(f"/matches/{match.pk}/logs/0/").status_code == 200,
        "list replay link": f'/matches/{match.pk}/#replay"' in pages.get("/matches/?status=done").content.decode(),
    }


def hides_everything(match, user) -> None:
    shown = shows_chance(match, user)
    assert not any(shown.values()), {door: True for door, seen in shown.items() if seen}


def shows(match, user, doors) -> None:
    shown = shows_chance(match, user)
    assert all(shown[d] for d in doors), {d: shown[d] for d in doors if not shown[d]}


LOG_DOORS = ["has_log", "fault message", "api log", "page secret", "page log", "bot page secret"]
# Staff investigate faults while the set is still being played: the seed, the replay and the logs.
STAFF_DOORS = ["api seed", "list seed", "page seed", "has_replay", "api replay", "api full replay", "page replay",
               "page full replay", *LOG_DOORS]
PUBLIC_DOORS = ["api seed", "list seed", "has_replay", "api replay", "page seed", "page replay", "list replay link"]


# --- a tournament round: every table plays the round's seed ---------------------------------------------

@pytest.fixture
def swiss_round(six_bots, owner):  # noqa: F811 (six_bots: the fixture imported above)
    """A Swiss tournament of six of alice's bots at tables of two: round 1 has 3 tables of 2 games,
    all on the round's seed. Returns the tables' games, table by table."""
    t = tournament_create(name="Cup", game=DSA, seat_count=2, format="swiss", rounds=2, bots=six_bots)
    tournament_start(tournament_id=t.pk)
    games = list(Match.objects.filter(group__tournament_table__round__tournament=t)
                 .order_by("group__tournament_table__index", "group_index"))
    tables = [games[i:i + 2] for i in range(0, len(games), 2)]
    assert len(tables) == 3 and len({m.seed for m in games}) == 1
    return {"tournament": t, "tables": tables}


def test_a_finished_table_shows_nothing_of_the_round_while_another_table_is_still_to_play(
        swiss_round, owner, other_user, staff, anonymous):
    first, second, third = swiss_round["tables"]
    for match in first + second:
        record(match)
    done = Match.objects.get(pk=first[0].pk)
    assert done.group.finished_at is not None   # its own table is over: the old rule published it
    for user in (None, other_user, owner):
        hides_everything(done, user)
    shows(done, staff, STAFF_DOORS)
    for match in third:
        record(match)
    for user in (None, other_user):
        shows(done, user, PUBLIC_DOORS)
    shows(done, owner, PUBLIC_DOORS + LOG_DOORS)


def test_pausing_a_tournament_does_not_publish_the_round_it_withdrew_games_of(swiss_round, owner):
    first, second, third = swiss_round["tables"]
    for match in first + second[:1]:
        record(match)
    tournament_pause(tournament_id=swiss_round["tournament"].pk)   # withdraws second[1] and table 3
    match_groups_settle()   # the recovery sweep: a group with no open game used to count as finished
    assert not MatchGroup.objects.filter(pk=second[0].group_id, finished_at__isnull=False).exists()
    done = Match.objects.get(pk=first[0].pk)
    hides_everything(done, None)
    hides_everything(done, owner)
    tournament_resume(tournament_id=swiss_round["tournament"].pk)
    for match in Match.objects.filter(status=Match.Status.QUEUED, kind=Match.Kind.TOURNAMENT):
        hides_everything(done, None)
        record(match)
    shows(done, None, PUBLIC_DOORS)


def test_cancelling_a_tournament_publishes_what_was_played(swiss_round, owner):
    first, _, _ = swiss_round["tables"]
    record(first[0])
    tournament_cancel(tournament_id=swiss_round["tournament"].pk)
    shows(Match.objects.get(pk=first[0].pk), owner, PUBLIC_DOORS + LOG_DOORS)


def test_a_solo_round_shows_no_entrants_deal_before_every_entrant_has_played(make_bot, owner):
    bots = [make_bot(f"s{i}", "divee") for i in range(3)]
    t = tournament_create(name="Solo", game="divee", seat_count=1, format="swiss", rounds=1, bots=bots)
    tournament_start(tournament_id=t.pk)
    games = list(Match.objects.filter(kind=Match.Kind.TOURNAMENT).order_by("id"))
    record(games[0])
    hides_everything(Match.objects.get(pk=games[0].pk), None)
    hides_everything(Match.objects.get(pk=games[0].pk), owner)


# --- a ladder rotation group ----------------------------------------------------------------------------

@pytest.fixture
def rotation_group(owner, other_user, ready_bot, ladder):
    alpha, bravo = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    return match_group_create(game=ladder.game, versions=[alpha.active_version, bravo.active_version],
                              ladder=ladder)


def test_the_owner_reads_no_log_of_a_rotation_game_while_the_group_still_plays(rotation_group, owner, staff):
    first, second = rotation_group
    record(first)
    done = Match.objects.get(pk=first.pk)
    hides_everything(done, owner)
    response = client_as(owner).get(f"/api/matches/{done.pk}/logs/0/")
    assert response.status_code == 403 and "every game sharing" in response.json()["detail"]
    shows(done, staff, STAFF_DOORS)
    record(second)
    shows(done, owner, PUBLIC_DOORS + LOG_DOORS)


def test_a_failed_game_of_an_unfinished_group_keeps_its_log_private(rotation_group, owner, settings):
    from arena.runs.recording import match_record_failure

    first, second = rotation_group
    record(first)
    Match.objects.filter(pk=second.pk).update(status=Match.Status.RUNNING, attempts=settings.MATCH_MAX_ATTEMPTS,
                                              worker="w")
    hides_everything(Match.objects.get(pk=first.pk), owner)
    match_record_failure(match_id=second.pk, error="worker lost", worker="w")
    shows(Match.objects.get(pk=first.pk), owner, PUBLIC_DOORS + LOG_DOORS)


# --- any set of groups: the same seed, or the same chance set (A/B test pairs) -----------------------

def test_groups_on_the_same_seed_share_chance_whatever_their_kind(owner, other_user, ready_bot, ladder):
    alpha, bravo = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    versions = [alpha.active_version, bravo.active_version]
    one = match_group_create(game=ladder.game, versions=versions, seed=4242, kind=Match.Kind.CHALLENGE)
    two = match_group_create(game=ladder.game, versions=versions, seed=4242, kind=Match.Kind.CHALLENGE)
    for match in one:
        record(match)
    hides_everything(Match.objects.get(pk=one[0].pk), owner)
    for match in two:
        record(match)
    shows(Match.objects.get(pk=one[0].pk), owner, PUBLIC_DOORS + LOG_DOORS)


def test_groups_of_one_chance_set_are_released_together_though_their_seeds_differ(owner, other_user, ready_bot,
                                                                                  ladder):
    alpha, bravo = ready_bot("alpha"), ready_bot("bravo", user=other_user)
    versions = [alpha.active_version, bravo.active_version]
    pairs = [match_group_create(game=ladder.game, versions=versions, kind=Match.Kind.CHALLENGE,
                                chance_set="abtest:1") for _ in range(2)]
    other = match_group_create(game=ladder.game, versions=versions, kind=Match.Kind.CHALLENGE)
    assert pairs[0][0].seed != pairs[1][0].seed
    for match in pairs[0] + other:
        record(match)
    hides_everything(Match.objects.get(pk=pairs[0][0].pk), owner)
    shows(Match.objects.get(pk=other[0].pk), owner, PUBLIC_DOORS + LOG_DOORS)   # another set: its own
    for match in pairs[1]:
        record(match)
    shows(Match.objects.get(pk=pairs[0][0].pk), owner, PUBLIC_DOORS + LOG_DOORS)


def test_a_lone_match_is_public_once_done(owner, other_user, ready_bot, ladder):
    from arena.matches.services import match_create

    match = match_create(game=ladder.game, versions=[ready_bot("alpha").active_version,
                                                     ready_bot("bravo", user=other_user).active_version], ladder=ladder)
    record(match)
    shows(Match.objects.get(pk=match.pk), owner, ["api seed", "has_replay", "api replay", "page seed",
                                                  "page replay", *LOG_DOORS])
