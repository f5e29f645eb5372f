"""The stored batch rating: what the fit is given (rotation groups as units, faulted seats last,
groups still playing left out), refits only when results arrived, the beat task and the command."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from arena.ladders.batch import (
    batch_refit,
    fault_adjusted_ranks,
    ladder_official_units,
    ladder_rated_groups,
    ladder_scored_groups,
)
from arena.ladders.models import Ladder, Rating, RatingSnapshot
from arena.ladders.services import ladder_create
from arena.matches.models import Match
from arena.matches.services import match_claim, match_create, match_group_create, match_record_luck
from arena.runs.recording import match_record_outcome
from competition.ratings.batch_scores import fit_scores
from competition.ratings.official import fault_capped, official_read
from tests.factories import clean_outcome


@dataclass(frozen=True)
class Fitted:  # what batch_rating.fit returns per bot (the same fields)
    rating: float
    low: float
    high: float
    games: int
    provisional: bool


class RecordingFit:
    """A fit that remembers what it was given and rates each bot by its id (to see it stored)."""

    def __init__(self):
        self.calls = []

    def __call__(self, groups):
        self.calls.append(groups)
        bots = {bot for group in groups for game in group for bot, _ in game}
        return {bot: Fitted(rating=float(bot), low=bot - 1.0, high=bot + 1.0, games=12, provisional=bot % 2 == 0)
                for bot in bots}


def test_faulted_seats_rank_below_every_seat_that_did_not_fault():
    assert fault_adjusted_ranks([(1, 1, True), (2, 2, False), (3, 3, False)]) == [(1, 3), (2, 1), (3, 2)]
    assert fault_adjusted_ranks([(1, 1, False), (2, 1, False), (3, 2, True), (4, 3, True)]) == \
        [(1, 1), (2, 1), (3, 2), (4, 3)]


def test_a_faulted_seat_counts_a_point_below_the_lowest_seat_that_did_not_fault():
    # It loses to every clean seat, as in Elo: a bot that crashed while ahead does not draw.
    assert fault_capped([(1, 30.0, True), (2, 20.0, False), (3, 5.0, False)]) == \
        [(1, 4.0), (2, 20.0), (3, 5.0)]
    assert fault_capped([(1, 12.0, True), (2, 12.0, False)]) == [(1, 11.0), (2, 12.0)]
    assert fault_capped([(1, 1.0, True), (2, 20.0, False)]) == [(1, 1.0), (2, 20.0)]  # already lower
    assert fault_capped([(1, 9.0, True), (2, 3.0, True)]) == [(1, 9.0), (2, 3.0)]  # all faulted


def _record(match, game_id, ranks_by_bot, faulted_bots=()):
    seats = list(match.seats.order_by("seat").values_list("seat", "bot_version__bot_id"))
    faults = [{"seat": seat, "kind": "crash", "step": 1, "message": "boom"} for seat, bot in seats if bot in faulted_bots]
    match_claim(match_id=match.pk, worker="w")
    assert match_record_outcome(match_id=match.pk, outcome=clean_outcome(
        game_id, len(seats), [ranks_by_bot[bot] for _, bot in seats], faults))


@pytest.fixture
def ladder_with_results(db, make_bot, game_id):
    ladder = ladder_create(slug="fit", name="Fit", game=game_id, seat_count=2)
    ann, ben, cid = (make_bot(name, game_id) for name in ("ann", "ben", "cid"))
    group = match_group_create(game=game_id, versions=[ann.active_version, ben.active_version], ladder=ladder)
    _record(group[0], game_id, {ann.pk: 1, ben.pk: 2})
    _record(group[1], game_id, {ann.pk: 1, ben.pk: 2}, faulted_bots={ann.pk})
    lone = match_create(game=game_id, versions=[ben.active_version, cid.active_version], ladder=ladder)
    _record(lone, game_id, {ben.pk: 1, cid.pk: 1})
    playing = match_group_create(game=game_id, versions=[cid.active_version, ann.active_version], ladder=ladder)
    _record(playing[0], game_id, {cid.pk: 1, ann.pk: 2})  # its second game is still queued
    return ladder, (ann, ben, cid), playing


def test_the_fit_gets_each_rated_group_as_one_unit_with_faulted_seats_last(ladder_with_results):
    ladder, (ann, ben, cid), _ = ladder_with_results
    groups = ladder_rated_groups(ladder=ladder)
    assert len(groups) == 2  # the group still playing is left out
    first, lone = groups
    assert [sorted(game) for game in first] == [sorted([(ann.pk, 1), (ben.pk, 2)]),
                                                sorted([(ann.pk, 2), (ben.pk, 1)])]  # ann faulted: last
    assert [sorted(game) for game in lone] == [sorted([(ben.pk, 1), (cid.pk, 1)])]


def test_a_refit_stores_the_fit_and_runs_again_only_when_results_arrived(ladder_with_results, game_id):
    ladder, (ann, ben, cid), playing = ladder_with_results
    fit = RecordingFit()
    assert batch_refit(ladder=ladder, fit=fit) is True
    stored = {r.bot_id: r for r in Rating.objects.filter(ladder=ladder)}
    for bot in (ann, ben, cid):
        row = stored[bot.pk]
        assert (row.batch_rating, row.batch_low, row.batch_high, row.batch_games) == (bot.pk, bot.pk - 1, bot.pk + 1, 12)
        assert row.batch_provisional is (bot.pk % 2 == 0) and row.batch_fitted_at is not None
    ladder.refresh_from_db()
    assert ladder.batch_fitted_at is not None
    assert batch_refit(ladder=ladder, fit=fit) is False and len(fit.calls) == 1  # nothing new: no refit
    _record(playing[1], game_id, {cid.pk: 1, ann.pk: 2})  # the group completes: rated, so new results
    assert batch_refit(ladder=Ladder.objects.get(pk=ladder.pk), fit=fit) is True
    assert len(fit.calls) == 2 and len(fit.calls[1]) == 3
    assert batch_refit(ladder=Ladder.objects.get(pk=ladder.pk), fit=fit, force=True) is True


def test_a_bot_without_rated_results_has_no_batch_rating(db, make_bot, game_id):
    ladder = ladder_create(slug="empty", name="Empty", game=game_id, seat_count=2)
    make_bot("lonely", game_id)
    fit = RecordingFit()
    assert batch_refit(ladder=ladder, fit=fit) is False  # no result at all: nothing to fit
    assert batch_refit(ladder=ladder, fit=fit, force=True) is True and fit.calls == []
    assert Rating.objects.get(ladder=ladder).batch_rating is None


def test_a_solo_ladder_has_no_batch_rating(db, solo_game_id):
    ladder = ladder_create(slug="solo", name="Solo", game=solo_game_id, seat_count=1)
    assert batch_refit(ladder=ladder, force=True, fit=RecordingFit()) is False


def test_the_beat_task_refits_every_ladder_with_new_results(ladder_with_results, monkeypatch):
    import arena.ladders.batch as batch
    from arena.ladders.tasks import batch_refit as task

    ladder, (ann, _, _), _ = ladder_with_results
    fit = RecordingFit()
    monkeypatch.setattr(batch, "_fit", lambda model: fit)
    assert task.apply().get() == ["fit"]
    assert Rating.objects.get(ladder=ladder, bot=ann).batch_rating == ann.pk
    assert task.apply().get() == []  # idempotent: a redelivered or early tick changes nothing


def test_the_command_refits_now_and_names_unknown_ladders(ladder_with_results, monkeypatch):
    import arena.ladders.batch as batch

    ladder, _, _ = ladder_with_results
    fit = RecordingFit()
    monkeypatch.setattr(batch, "_fit", lambda model: fit)
    out = StringIO()
    call_command("batch_refit", stdout=out)
    assert "fit: refitted, 3 bot(s) rated" in out.getvalue()
    out = StringIO()
    call_command("batch_refit", "--if-new", stdout=out)
    assert "fit: unchanged" in out.getvalue()
    with pytest.raises(CommandError, match="no such ladder: nowhere"):
        call_command("batch_refit", "--ladder", "nowhere")


def test_the_score_model_gets_the_same_units_with_scores_and_faulted_seats_at_the_bottom(ladder_with_results):
    ladder, (ann, ben, cid), _ = ladder_with_results
    first, lone = ladder_scored_groups(ladder=ladder)
    # clean_outcome scores 10 for rank 1 and 0 for rank 2 of two seats; ann's fault puts her 10 a
    # point below ben's 0: she loses that game, as she does in Elo
    assert [sorted(game) for game in first] == [sorted([(ann.pk, 10.0), (ben.pk, 0.0)]),
                                                sorted([(ann.pk, -1.0), (ben.pk, 0.0)])]
    assert [sorted(game) for game in lone] == [sorted([(ben.pk, 10.0), (cid.pk, 10.0)])]


@pytest.mark.parametrize("model", ["scores", "ranks"])
def test_the_stored_batch_rating_is_the_fit_of_the_ladders_groups_on_its_model(ladder_with_results, model):
    from competition.ratings.batch import fit
    from competition.ratings.official import fit_play

    ladder, bots, _ = ladder_with_results
    Ladder.objects.filter(pk=ladder.pk).update(batch_model=model)
    ladder.refresh_from_db()
    assert batch_refit(ladder=ladder) is True
    expected = (fit_play(ladder_scored_groups(ladder=ladder)) if model == "scores"
                else fit(ladder_rated_groups(ladder=ladder)))
    for bot in bots:
        row = Rating.objects.get(ladder=ladder, bot=bot)
        want = expected[bot.pk]
        assert (row.batch_rating, row.batch_low, row.batch_high, row.batch_games) == \
            (want.rating, want.low, want.high, want.games)
        # A handful of results (a bootstrap of such groups can have no width at all): under
        # BATCH_PROVISIONAL_GAMES games a bot stays provisional whatever its interval.
        assert row.batch_provisional is True


def test_changing_the_model_refits_without_new_results(ladder_with_results):
    ladder, (ann, _, _), _ = ladder_with_results
    assert ladder.batch_model == "scores"  # the recommended default
    assert batch_refit(ladder=ladder) is True
    assert batch_refit(ladder=ladder) is False
    on_scores = Rating.objects.get(ladder=ladder, bot=ann).batch_rating
    Ladder.objects.filter(pk=ladder.pk).update(batch_model="ranks")
    ladder.refresh_from_db()
    assert batch_refit(ladder=ladder) is True and ladder.batch_fitted_model == "ranks"
    assert Rating.objects.get(ladder=ladder, bot=ann).batch_rating != on_scores
    assert batch_refit(ladder=ladder) is False


def test_a_narrow_interval_under_the_minimum_games_stays_provisional(ladder_with_results, settings):
    ladder, bots, _ = ladder_with_results
    settings.BATCH_PROVISIONAL_GAMES = 13  # the fit's 12 games are too few, whatever it says
    batch_refit(ladder=ladder, fit=RecordingFit())
    assert all(Rating.objects.get(ladder=ladder, bot=bot).batch_provisional for bot in bots)


def test_the_official_fit_reads_play_once_luck_is_measured_and_raw_scores_until_then(ladder_with_results, game_id):
    ladder, (ann, ben, cid), _ = ladder_with_results
    assert batch_refit(ladder=ladder) is True
    ladder.refresh_from_db()
    assert (ladder.batch_play_games, ladder.batch_raw_games) == (0, 3)  # no luck measured: all raw, and said so
    assert batch_refit(ladder=ladder) is False
    lone = Match.objects.get(ladder=ladder, group__isnull=True)
    seats = dict(lone.seats.values_list("bot_version__bot_id", "seat"))
    luck = [0.0, 0.0]
    luck[seats[ben.pk]], luck[seats[cid.pk]] = 4.0, -2.5  # ben 10 with luck +4, cid 10 with luck -2.5
    assert match_record_luck(match_id=lone.pk, luck=luck)
    assert [seat[3] for unit in ladder_official_units(ladder=ladder) for game in unit for seat in game].count(None) == 4
    assert batch_refit(ladder=Ladder.objects.get(pk=ladder.pk)) is True  # luck arrived: refitted, no new result
    ladder.refresh_from_db()
    assert (ladder.batch_play_games, ladder.batch_raw_games) == (1, 2)
    read = official_read(ladder_official_units(ladder=ladder), game=game_id)
    lone_game = [game for unit in read.groups for game in unit if {b for b, _ in game} == {ben.pk, cid.pk}][0]
    assert sorted(lone_game) == sorted([(ben.pk, 6.0), (cid.pk, 12.5)])  # play: score - luck
    expected = fit_scores(read.groups)
    assert Rating.objects.get(ladder=ladder, bot=cid).batch_rating == expected[cid.pk].rating
    assert expected[cid.pk].rating > expected[ben.pk].rating  # equal scores, cid had the worse dice
    assert batch_refit(ladder=Ladder.objects.get(pk=ladder.pk)) is False


def test_every_refit_keeps_the_ratings_that_moved_as_the_official_history(ladder_with_results, game_id):
    ladder, (ann, ben, cid), playing = ladder_with_results
    batch_refit(ladder=ladder)
    first = {s.rating.bot_id: s for s in RatingSnapshot.objects.select_related("rating")}
    assert set(first) == {ann.pk, ben.pk, cid.pk}
    for bot_id, snapshot in first.items():
        row = Rating.objects.get(ladder=ladder, bot_id=bot_id)
        assert (snapshot.value, snapshot.low, snapshot.high, snapshot.games, snapshot.fitted_at) == \
            (row.batch_rating, row.batch_low, row.batch_high, row.batch_games, row.batch_fitted_at)
    batch_refit(ladder=ladder, force=True)  # the same results: nothing moved, nothing kept
    assert RatingSnapshot.objects.count() == 3
    _record(playing[1], game_id, {cid.pk: 1, ann.pk: 2})
    batch_refit(ladder=Ladder.objects.get(pk=ladder.pk))
    moved = RatingSnapshot.objects.filter(fitted_at__gt=first[ann.pk].fitted_at)
    assert moved.filter(rating__bot=cid).exists() and moved.count() >= 2
