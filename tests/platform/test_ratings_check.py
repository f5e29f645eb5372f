"""manage.py ratings_check: every ladder recomputed from its stored results, in the order they were
applied, with the project's own Elo; differences reported (exit 1) and rewritten with --fix."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from arena.ladders.models import Rating, RatingChange
from arena.ladders.services import ladder_create, ladder_enter
from arena.matches.services import match_claim, match_create
from arena.runs.recording import match_record_outcome
from competition.ratings.standing import application_order
from tests.factories import clean_outcome


def check(*args) -> str:
    out = StringIO()
    call_command("ratings_check", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def played(db, make_bot, game_id):
    """Three bots, four rated matches recorded in another order than they were created."""
    ladder = ladder_create(slug="chk", name="Check", game=game_id, seat_count=2, k_factor=32)
    a, b, c = (make_bot(name, game_id) for name in ("ann", "ben", "cat"))
    for bot in (a, b, c):
        ladder_enter(ladder=ladder, bot=bot)
    pairs = [(a, b), (b, c), (a, c), (c, b)]
    matches = [match_create(game=game_id, versions=[x.active_version, y.active_version], ladder=ladder)
               for x, y in pairs]
    for match, ranks in zip(reversed(matches), ([1, 2], [2, 1], [1, 2], [1, 1])):  # last created finishes first
        match_claim(match_id=match.pk, worker="w")
        match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2, ranks))
    return ladder, (a, b, c), matches


def test_each_rating_change_stores_its_bots_sequence_on_the_ladder(played):
    ladder, (a, b, c), matches = played
    assert list(RatingChange.objects.filter(bot=c).order_by("sequence").values_list("match_id", flat=True)) == \
        [matches[3].pk, matches[2].pk, matches[1].pk]
    assert list(RatingChange.objects.filter(bot=c).values_list("sequence", flat=True).order_by("sequence")) == [1, 2, 3]


def test_ladders_recorded_out_of_creation_order_check_clean(played):
    ladder, _, _ = played
    assert "chk: 4 rated match(es), 3 bot(s): ok" in check()


def test_a_rating_that_differs_from_the_recomputation_is_reported_and_fixed(played):
    ladder, (a, b, c), matches = played
    true_elo = Rating.objects.get(ladder=ladder, bot=a).elo
    Rating.objects.filter(ladder=ladder, bot=a).update(elo=true_elo + 5.9, games=0, wins=0)
    RatingChange.objects.filter(match=matches[0], bot=b).update(after=1.0)
    with pytest.raises(CommandError) as caught:
        check("--ladder", "chk")
    assert caught.value.returncode == 1
    fixed = check("--fix")
    assert "3 value(s) fixed" in fixed and "bot ann: elo stored" in fixed and f"match {matches[0].pk}, bot ben" in fixed
    rating = Rating.objects.get(ladder=ladder, bot=a)
    assert rating.elo == pytest.approx(true_elo) and rating.wins + rating.draws + rating.losses == rating.games
    assert "ok" in check()


def test_a_done_rated_match_without_rating_changes_is_reported(played):
    ladder, _, matches = played
    RatingChange.objects.filter(match=matches[0]).delete()
    with pytest.raises(CommandError):
        check()


def test_a_solo_ladder_is_recomputed_from_its_mean_scores(db, make_bot, solo_game_id):
    ladder = ladder_create(slug="alone", name="Alone", game=solo_game_id, seat_count=1)
    bot = make_bot("hermit", solo_game_id)
    ladder_enter(ladder=ladder, bot=bot)
    for score in (3, 8):
        match = match_create(game=solo_game_id, versions=[bot.active_version], ladder=ladder)
        match_claim(match_id=match.pk, worker="w")
        outcome = clean_outcome(solo_game_id, 1)
        outcome["scores"] = [score]
        match_record_outcome(match_id=match.pk, outcome=outcome)
    assert "alone: 2 rated match(es), 1 bot(s): ok" in check("--ladder", "alone")
    Rating.objects.filter(bot=bot).update(score_sum=99)
    with pytest.raises(CommandError):
        check("--ladder", "alone")


def test_an_unknown_ladder_is_refused(db):
    with pytest.raises(CommandError, match="no such ladder: nowhere"):
        check("--ladder", "nowhere")


def test_matches_are_replayed_in_every_bots_own_order():
    # m3 came first for bot 1, then m1; m2 (bots 2 and 3) commutes with both.
    units = {1: {"bot1": 2, "bot2": 1}, 3: {"bot1": 1}, 2: {"bot3": 1}, 4: {"bot2": 2, "bot3": 2}}
    assert application_order(units) == [2, 3, 1, 4]
    with pytest.raises(ValueError):
        application_order({1: {"bot1": 1}, 2: {"bot1": 1}})


def test_a_match_recorded_while_the_check_reads_is_wholly_in_it_or_not_at_all(transactional_db, make_bot, game_id,
                                                                               monkeypatch):
    # A live platform records matches while ratings_check reads: one recorded between its queries
    # (its rating changes not yet there, its status done already) was reported as rated without changes.
    import threading

    from django.db import connections

    from arena.ladders import recompute

    ladder = ladder_create(slug="live", name="Live", game=game_id, seat_count=2)
    a, b = make_bot("ann", game_id), make_bot("ben", game_id)
    for bot in (a, b):
        ladder_enter(ladder=ladder, bot=bot)
    match = match_create(game=game_id, versions=[a.active_version, b.active_version], ladder=ladder)
    match_claim(match_id=match.pk, worker="w")
    order = recompute.application_order

    def recorded_by_a_worker_meanwhile(units):
        def worker():
            match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2, [1, 2]))
            connections.close_all()

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        return order(units)

    monkeypatch.setattr(recompute, "application_order", recorded_by_a_worker_meanwhile)
    assert "live: 0 rated match(es), 2 bot(s): ok" in check("--ladder", "live")
    monkeypatch.setattr(recompute, "application_order", order)
    assert "live: 1 rated match(es), 2 bot(s): ok" in check("--ladder", "live")
