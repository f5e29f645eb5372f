"""A/B test services: starting, advancing pair by pair to a verdict, priority, limits, stopping."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from arena.abtests.models import ABTest
from arena.abtests.services import (ABTestLimitReached, abtest_advance, abtest_create, abtest_report, abtest_stop)
from arena.matches.models import Match
from arena.matches.services import match_create
from tests.abtests.conftest import play_queued, play_to_end
from workers import sprt


def start(owner, versions, **kwargs) -> ABTest:
    kwargs.setdefault("num_players", 2)
    return abtest_create(by=owner, game=versions["game"], a=versions["old"], b=versions["new"], **kwargs)


def test_a_new_version_against_its_old_one_plays_unrated_swapped_pairs_until_h1(owner, versions):
    test = start(owner, versions, max_games=200)
    assert test.status == "queued" and Match.objects.filter(kind="abtest").count() == 0
    assert abtest_advance(test_id=test.pk) == "running"
    games = list(Match.objects.filter(kind="abtest").prefetch_related("seats").order_by("id"))
    assert len(games) == 4 and all(not m.rated and m.requested_by == owner for m in games)
    first, second = games[0], games[1]
    assert first.seed == second.seed and first.group_id == second.group_id
    seat_of = {m.pk: {s.bot_version_id: s.seat for s in m.seats.all()} for m in games}
    assert seat_of[first.pk][versions["old"].pk] == 0 and seat_of[second.pk][versions["old"].pk] == 1
    assert games[2].seed != first.seed
    test.refresh_from_db()
    rounds = 0
    while test.status == "running":
        play_queued(test, b_wins=True)
        abtest_advance(test_id=test.pk)
        test.refresh_from_db()
        rounds += 1
        assert rounds < 20
    assert test.status == "finished" and test.verdict == "H1"
    report = abtest_report(test)
    sweeps = sprt.Tally(elo0=test.elo0, elo1=test.elo1)       # the local statistic on the same pairs
    while sprt.verdict(sweeps, test.alpha, test.beta) == "undecided":
        sweeps.add_pair(1, 1, (1, 1), (2, 2))
    assert report["pairs"] == sweeps.pairs >= sprt.MIN_PAIRS and report["games"] == sweeps.games
    assert report["llr"] == round(sprt.llr(sweeps), 4) >= report["bounds"][1]
    assert report["b_mean_score"] > report["a_mean_score"]
    assert len(test.history) == sweeps.pairs and test.history[-1][0] == report["games"]
    assert test.pairs.filter(counted=True).count() == sweeps.pairs
    assert abtest_advance(test_id=test.pk) == "finished"


def test_a_weaker_b_is_h0(owner, versions):
    test = start(owner, versions)
    play_to_end(test, 20, b_wins=False)
    assert test.status == "finished" and test.verdict == "H0"


def test_ab_games_go_one_pair_at_a_time_while_other_matches_are_queued(owner, other_user, versions, settings,
                                                                       ready_bot):
    settings.ABTEST_YIELD_QUEUED = 1
    charlie = ready_bot("charlie", user=other_user)
    match_create(game=versions["game"], versions=[versions["bravo"], charlie.active_version], kind="challenge")
    test = start(owner, versions)
    abtest_advance(test_id=test.pk)
    assert Match.objects.filter(kind="abtest").count() == 2
    abtest_advance(test_id=test.pk)
    assert Match.objects.filter(kind="abtest").count() == 2
    Match.objects.filter(kind="challenge").update(status="running")
    abtest_advance(test_id=test.pk)
    assert Match.objects.filter(kind="abtest").count() == 2 * settings.ABTEST_PAIRS_IN_FLIGHT


def test_at_four_seats_the_opponents_sit_alike_in_both_games_and_the_seats_rotate_over_pairs(
        owner, other_user, versions, ready_bot, settings):
    settings.ABTEST_PAIRS_IN_FLIGHT = 6
    charlie = ready_bot("charlie", user=other_user).active_version
    opponents = [versions["bravo"], charlie]
    test = start(owner, versions, num_players=4, opponents=opponents)
    assert test.opponents == [versions["bravo"].pk, charlie.pk]
    abtest_advance(test_id=test.pk)
    a, b = versions["old"].pk, versions["new"].pk
    seen = set()
    for pair in test.pairs.order_by("number"):
        first, second = (list(m.seats.order_by("seat").values_list("bot_version_id", flat=True))
                         for m in pair.group.matches.order_by("group_index"))
        assert pair.group.matches.values("seed").distinct().count() == 1
        # A and B swapped, every opponent where it was.
        assert [{a: b, b: a}.get(v, v) for v in first] == second
        assert sorted(first) == sorted([a, b, versions["bravo"].pk, charlie.pk])
        seen.add((first.index(a), first.index(b)))
    assert seen == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}     # every pair of seat positions
    # Counting reads A and B by version, whatever their seats.
    play_queued(test, b_wins=True)
    abtest_advance(test_id=test.pk)
    test.refresh_from_db()
    assert test.tally["counts"] == [0, 0, 0, 0, 6]


def test_opponents_must_fill_the_other_seats_with_versions_one_may_use(owner, other_user, versions, bot_upload):
    from arena.bots.models import BotVersion
    from arena.bots.services import bot_version_create
    from arena.runs.smoke import bot_version_record_smoke_test
    from tests.factories import summary_outcome

    for kwargs in ({"num_players": 3}, {"num_players": 3, "opponents": [versions["old"]]},   # none; A again
                   {"num_players": 2, "opponents": [versions["bravo"]]}):                     # one too many
        with pytest.raises(ValidationError) as error:
            start(owner, versions, **kwargs)
        assert error.value.code == "opponents"
    # bob's bot moves on to a new version: its old one is no longer one alice may challenge.
    bravo_old = versions["bravo"]
    newer = bot_version_create(bot=bravo_old.bot, upload=bot_upload(name="bot.py"), by=other_user)
    bot_version_record_smoke_test(version_id=newer.pk, outcome=summary_outcome(versions["game"], 2))
    bravo_old = BotVersion.objects.select_related("bot").get(pk=bravo_old.pk)
    with pytest.raises(PermissionDenied):
        start(owner, versions, num_players=3, opponents=[bravo_old])
    assert not ABTest.objects.exists()
    newer.refresh_from_db()
    assert start(owner, versions, num_players=3, opponents=[newer]).opponents == [newer.pk]


def test_max_games_ends_an_undecided_test(owner, versions):
    test = start(owner, versions, max_games=20, elo1=2)
    alternate = True
    for _ in range(30):
        abtest_advance(test_id=test.pk)
        test.refresh_from_db()
        if test.status != "running":
            break
        play_queued(test, b_wins=alternate)
        alternate = not alternate
    assert test.status == "finished" and test.verdict in ("undecided", "H0")
    assert abtest_report(test)["games"] <= 20


def test_who_may_test_what(owner, other_user, staff, versions, anonymous):
    with pytest.raises(PermissionDenied):   # b must be the caller's
        abtest_create(by=other_user, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    with pytest.raises(PermissionDenied):   # bob's bot's old version is not his to choose... it is alice's
        abtest_create(by=other_user, game=versions["game"], num_players=2, a=versions["old"], b=versions["bravo"])
    with pytest.raises(PermissionDenied):
        abtest_create(by=anonymous, game=versions["game"], num_players=2, a=versions["old"], b=versions["new"])
    # Another bot's active version is fair game; staff may test anything.
    assert abtest_create(by=other_user, game=versions["game"], num_players=2, a=versions["new"], b=versions["bravo"])
    assert abtest_create(by=staff, game=versions["game"], num_players=2, a=versions["bravo"], b=versions["old"])


@pytest.mark.parametrize("kwargs, code", [
    ({"num_players": 5}, "num_players"), ({"num_players": 3}, "opponents"), ({"elo0": 5, "elo1": 5}, "elo1"),
    ({"max_games": 4}, "max_games"),
    ({"game": "no_such_game"}, "game"), ({"b": "old"}, "b"),
])
def test_bad_input_is_refused_and_creates_nothing(owner, versions, kwargs, code):
    arguments = {"by": owner, "game": versions["game"], "num_players": 2, "a": versions["old"], "b": versions["new"]}
    arguments.update({k: versions[v] if k in ("a", "b") else v for k, v in kwargs.items()})
    with pytest.raises(ValidationError) as error:
        abtest_create(**arguments)
    assert error.value.code == code
    assert not ABTest.objects.exists()


def test_tests_at_once_and_games_a_day_are_limited(owner, versions, settings):
    settings.ABTESTS_AT_ONCE = 1
    first = start(owner, versions)
    with pytest.raises(ABTestLimitReached, match="At most 1 A/B tests at once"):
        start(owner, versions)
    abtest_stop(by=owner, test=first)
    settings.ABTEST_GAMES_PER_DAY = 4
    second = start(owner, versions)
    abtest_advance(test_id=second.pk)
    assert Match.objects.filter(kind="abtest", group__abtest_pair__test=second).count() == 4
    play_queued(second)
    abtest_advance(test_id=second.pk)
    second.refresh_from_db()
    assert second.status == "stopped" and "daily limit" in second.reason
    with pytest.raises(ABTestLimitReached, match="in 24 hours"):
        start(owner, versions)


def test_the_owner_stops_a_test_and_its_queued_games_are_not_played(owner, other_user, versions):
    test = start(owner, versions)
    abtest_advance(test_id=test.pk)
    with pytest.raises(PermissionDenied):
        abtest_stop(by=other_user, test=test)
    stopped = abtest_stop(by=owner, test=test)
    assert stopped.status == "stopped" and stopped.finished_at is not None
    assert set(Match.objects.filter(kind="abtest").values_list("status", flat=True)) == {"failed"}
    assert all(m.group.finished_at for m in Match.objects.filter(kind="abtest").select_related("group"))
    with pytest.raises(ValidationError):
        abtest_stop(by=owner, test=test)
