"""Luck on the platform (arena/runs/luck.py): measured after the recording by the beat's sweep,
recorded once per seat, marked when it cannot be measured, summed up per bot; per step on request."""

from __future__ import annotations

import pytest
from django.utils import timezone

from arena.matches.models import Match, MatchGroup, MatchSeat
from arena.matches.replay_store import unpack
from arena.matches.selectors import bot_luck_summary, match_luck_steps
from arena.matches.services import match_record_luck
from arena.runs.luck import luck_sweep, measure_match_luck
from workers.luck import LUCK_MODEL, luck_of_game
from workers.replay import joint_actions

pytestmark = pytest.mark.django_db


def _expected(match) -> list[float]:
    replay = unpack(match.replay)
    return luck_of_game(replay["game"], replay["num_players"], replay["seed"], replay["options"],
                        joint_actions(replay))


def test_a_recorded_match_has_no_luck_until_measured_then_once_per_seat(replayed_match):
    seats = MatchSeat.objects.filter(match=replayed_match).order_by("seat")
    assert [s.luck for s in seats] == [None, None, None]
    assert measure_match_luck(replayed_match.pk) == "measured"
    assert [s.luck for s in seats.all()] == pytest.approx(_expected(replayed_match))
    replayed_match.refresh_from_db()
    assert replayed_match.luck_measured_at is not None
    # Idempotent: a second sweep (or a duplicate) changes nothing.
    assert measure_match_luck(replayed_match.pk) == "skipped"
    assert match_record_luck(match_id=replayed_match.pk, luck=[99.0, 99.0, 99.0]) is False
    assert 99.0 not in [s.luck for s in seats.all()]


def test_the_sweep_measures_what_is_left_and_marks_what_cannot_be_measured(replayed_match, arena):
    broken = arena["played"]       # its stored replay is not a replay of a game
    assert luck_sweep() == 1
    assert set(Match.objects.filter(luck_measured_at__isnull=False).values_list("id", flat=True)) == {
        replayed_match.pk, broken.pk}
    assert all(s.luck is None for s in MatchSeat.objects.filter(match=broken))
    assert luck_sweep() == 0       # nothing left; the queued match is not touched
    assert Match.objects.get(pk=arena["queued"].pk).luck_measured_at is None


def test_luck_that_does_not_fit_the_seats_is_refused_and_changes_nothing(replayed_match):
    with pytest.raises(ValueError, match="3 seats"):
        match_record_luck(match_id=replayed_match.pk, luck=[1.0, 2.0])
    assert Match.objects.get(pk=replayed_match.pk).luck_measured_at is None


def test_a_bots_summary_gives_its_mean_luck_and_luck_adjusted_mean(replayed_match):
    seat = MatchSeat.objects.select_related("bot_version__bot").get(match=replayed_match, seat=0)
    bot = seat.bot_version.bot
    assert bot_luck_summary(bot=bot) == {"count": 0, "mean_score": None, "mean_luck": None, "mean_play": None}
    measure_match_luck(replayed_match.pk)
    seat.refresh_from_db()
    summary = bot_luck_summary(bot=bot)
    assert summary["count"] == 1
    assert summary["mean_luck"] == pytest.approx(seat.luck)
    assert summary["mean_play"] == pytest.approx(seat.score - seat.luck)


def test_per_step_luck_is_computed_on_request_and_adds_up(replayed_match):
    report = match_luck_steps(replayed_match)
    assert report["luck"] == pytest.approx(_expected(replayed_match), abs=1e-3)
    assert len(report["steps"]) == len(unpack(replayed_match.replay)["steps"]["to_act"])
    for seat in range(3):
        total = report["setup"][seat] + sum(step[seat] for step in report["steps"])
        assert total == pytest.approx(report["luck"][seat], abs=0.01)
    assert match_luck_steps(replayed_match) == report      # the cached copy


def test_luck_waits_until_no_game_sharing_the_matchs_chance_is_still_to_play(replayed_match):
    # A rotation group's game 1 is done, game 2 (same seed) still queued: the luck of game 1, and so
    # the bot page's mean luck, would tell something of game 2's dice.
    group = MatchGroup.objects.create(game=replayed_match.game, seed=replayed_match.seed, size=2)
    Match.objects.filter(pk=replayed_match.pk).update(group=group, group_index=0)
    assert measure_match_luck(replayed_match.pk) == "skipped"
    assert luck_sweep() == 0
    assert all(s.luck is None for s in MatchSeat.objects.filter(match=replayed_match))
    seat = MatchSeat.objects.select_related("bot_version__bot").get(match=replayed_match, seat=0)
    assert bot_luck_summary(bot=seat.bot_version.bot)["count"] == 0
    # Every game of the group played: the chance is public, and the next sweep measures it.
    MatchGroup.objects.filter(pk=group.pk).update(finished_at=timezone.now())
    assert luck_sweep() == 1
    assert [s.luck for s in MatchSeat.objects.filter(match=replayed_match).order_by("seat")] == pytest.approx(
        _expected(replayed_match))


def test_luck_measured_by_another_model_is_measured_again_once_nothing_new_waits(replayed_match, arena):
    # V's weights (or the method) changed since this match was measured: the sweep measures it again,
    # after every unmeasured match, so that a ladder reads one V and a match's steps add up to its luck.
    assert LUCK_MODEL.startswith("2.")
    assert match_record_luck(match_id=replayed_match.pk, luck=[5.0, -1.0, 0.5], model="1.old") is True
    broken = arena["played"]       # not a replay of a game: unmeasurable
    assert match_record_luck(match_id=broken.pk, luck=None, model="1.old") is True
    MatchSeat.objects.filter(match=broken).update(luck=3.0)
    assert luck_sweep() == 1
    seats = MatchSeat.objects.filter(match=replayed_match).order_by("seat")
    assert [s.luck for s in seats] == pytest.approx(_expected(replayed_match))
    assert set(Match.objects.filter(luck_model=LUCK_MODEL).values_list("id", flat=True)) == {
        replayed_match.pk, broken.pk}
    # The one that cannot be measured keeps the luck it had, and is not tried again by this model.
    assert all(s.luck == 3.0 for s in MatchSeat.objects.filter(match=broken))
    assert luck_sweep() == 0
    assert match_record_luck(match_id=replayed_match.pk, luck=[9.0, 9.0, 9.0]) is False


def test_measuring_a_match_another_model_measured_marks_it_with_todays_model(replayed_match, arena):
    stale = arena["played"]
    match_record_luck(match_id=stale.pk, luck=None, model="1.old")
    assert measure_match_luck(replayed_match.pk) == "measured"   # unmeasured: as before
    assert measure_match_luck(stale.pk) == "unmeasurable"        # another model's: measured again
    assert Match.objects.get(pk=stale.pk).luck_model == LUCK_MODEL
    assert measure_match_luck(stale.pk) == "skipped"
