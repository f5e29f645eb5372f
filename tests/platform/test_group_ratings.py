"""A ladder's rotation group is rated once, as a unit, after its last open game: golden sequences of
the maths (pure and through the platform), ties, faulted seats, redelivery, two last games recorded
at once, a game that fails, and ``manage.py ratings_check`` over groups."""

from __future__ import annotations

import threading
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection, connections

from arena.ladders.models import Rating, RatingChange
from arena.ladders.services import ladder_create
from arena.matches.models import Match, MatchGroup
from arena.matches.services import match_claim, match_group_create, match_requeue
from arena.runs.recording import match_record_failure, match_record_outcome
from competition.ratings.standing import SeatResult, Standing, standings_after_group, standings_after_match
from tests.factories import clean_outcome


def won(rank: int, faulted: bool = False) -> SeatResult:
    return SeatResult(score=float(10 - rank), rank=rank, faulted=faulted)


# --- the maths, pure ---------------------------------------------------------------------

def test_a_group_of_one_game_is_rated_as_that_match_is():
    before = [Standing(elo=1200.0), Standing(elo=1350.0), Standing(elo=1100.0)]
    game = [won(2), won(1), won(3)]
    assert standings_after_group(before, [game], solo=False, k_factor=16) == \
        standings_after_match(before, game, solo=False, k_factor=16)


def test_golden_two_seat_group_moves_elo_once_on_the_mean_result():
    before = [Standing(elo=1200.0), Standing(elo=1200.0)]
    # Each wins once from each seat: even, so nothing moves, though every game is counted.
    even = standings_after_group(before, [[won(1), won(2)], [won(2), won(1)]], solo=False, k_factor=16)
    assert [s.elo for s in even] == [1200.0, 1200.0]
    assert [(s.games, s.wins, s.losses) for s in even] == [(2, 1, 1), (2, 1, 1)]
    # Both won by the first: one update of K * (1 - 0.5) = 8, not two successive ones (8 + 7.63).
    swept = standings_after_group(before, [[won(1), won(2)], [won(1), won(2)]], solo=False, k_factor=16)
    assert [s.elo for s in swept] == pytest.approx([1208.0, 1192.0])


def test_golden_ties_give_equal_updates_and_a_faulted_seat_ranks_last():
    before = [Standing(elo=1200.0)] * 3
    tied = standings_after_group(before, [[won(1), won(1), won(3)]] * 3, solo=False, k_factor=16)
    assert tied[0].elo == tied[1].elo == pytest.approx(1204.0)  # two wins of 1 each, K/2 * 0.5 each
    assert tied[2].elo == pytest.approx(1192.0)
    assert [s.draws for s in tied[:2]] == [3, 3]
    # A faulted seat loses to everyone that did not fault, whatever rank it was given.
    faulted = standings_after_group(before, [[won(1, faulted=True), won(2), won(3)]], solo=False, k_factor=16)
    assert faulted[0].elo == pytest.approx(1192.0) and faulted[0].faults == 1 and faulted[0].losses == 1
    assert faulted[1].elo == pytest.approx(1208.0) and faulted[1].wins == 1
    assert faulted[2].elo == pytest.approx(1200.0) and faulted[2].losses == 1


# --- through the platform ------------------------------------------------------------------

@pytest.fixture
def table(make_bot, game_id):
    return [make_bot(name, game_id) for name in ("ann", "ben", "cid")]


def _group(ladder, table, game_id) -> list[Match]:
    return match_group_create(game=game_id, versions=[b.active_version for b in table], ladder=ladder, seed=5)


def _record(match: Match, game_id: str, ranks_by_bot: dict[int, int], faulted_bots=()) -> bool:
    """Record ``match`` with each bot's rank (and fault), whatever seat it has in this game."""
    seats = list(match.seats.order_by("seat").values_list("seat", "bot_version__bot_id"))
    ranks = [ranks_by_bot[bot] for _, bot in seats]
    faults = [{"seat": seat, "kind": "timeout", "step": 1, "message": "slow"}
              for seat, bot in seats if bot in faulted_bots]
    match_claim(match_id=match.pk, worker="w")
    return match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, len(seats), ranks, faults))


def _elo(ladder, bot) -> float:
    return Rating.objects.get(ladder=ladder, bot=bot).elo


def test_a_group_is_rated_once_after_its_last_game_on_the_mean_result(db, table, game_id):
    ladder = ladder_create(slug="grp", name="Group", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    games = _group(ladder, table, game_id)
    # ann finishes first in every seat; ben and cid swap second and third: ben ahead twice.
    results = [{ann.pk: 1, ben.pk: 2, cid.pk: 3}, {ann.pk: 1, ben.pk: 3, cid.pk: 2}, {ann.pk: 1, ben.pk: 2, cid.pk: 3}]
    for match, ranks in zip(games[:2], results):
        assert _record(match, game_id, ranks)
        assert not RatingChange.objects.exists() and MatchGroup.objects.get().rated_at is None
    assert _record(games[2], game_id, results[2])
    assert MatchGroup.objects.get().rated_at is not None
    changes = list(RatingChange.objects.order_by("bot_id"))
    assert len(changes) == 3 and {c.match_id for c in changes} == {games[2].pk} and {c.sequence for c in changes} == {1}
    # ann: 1 vs both, K/2 each: +4 +4; ben: 0 vs ann, 2/3 vs cid: -4 + 8 * (2/3 - 1/2); cid the rest.
    assert _elo(ladder, ann) == pytest.approx(1208.0)
    assert _elo(ladder, ben) == pytest.approx(1200 - 4 + 8 / 6)
    assert _elo(ladder, cid) == pytest.approx(1200 - 4 - 8 / 6)
    rating = Rating.objects.get(ladder=ladder, bot=ben)
    assert (rating.games, rating.wins, rating.losses, rating.rank_sum) == (3, 0, 3, 7)
    # The task redelivered: nothing is recorded or rated twice.
    assert match_record_outcome(match_id=games[2].pk, outcome=clean_outcome(game_id, 3)) is False
    assert RatingChange.objects.count() == 3 and _elo(ladder, ann) == pytest.approx(1208.0)


def test_tied_bots_get_equal_updates_through_the_platform(db, table, game_id):
    ladder = ladder_create(slug="tie", name="Tie", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    for match in _group(ladder, table, game_id):
        _record(match, game_id, {ann.pk: 1, ben.pk: 1, cid.pk: 3})
    assert _elo(ladder, ann) == _elo(ladder, ben) == pytest.approx(1204.0)
    assert _elo(ladder, cid) == pytest.approx(1192.0)


def test_a_faulted_seat_ranks_last_in_a_group(db, table, game_id):
    ladder = ladder_create(slug="flt", name="Fault", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    for match in _group(ladder, table, game_id):  # ann is given rank 1 but faults every time
        _record(match, game_id, {ann.pk: 1, ben.pk: 2, cid.pk: 3}, faulted_bots={ann.pk})
    assert _elo(ladder, ann) == pytest.approx(1192.0)  # behind both, though given rank 1
    assert _elo(ladder, ben) == pytest.approx(1208.0)
    assert _elo(ladder, cid) == pytest.approx(1200.0)  # behind ben, ahead of the faulted ann
    assert Rating.objects.get(ladder=ladder, bot=ann).faults == 3


def test_a_group_whose_game_fails_is_rated_on_the_games_that_finished(db, table, game_id):
    ladder = ladder_create(slug="fail", name="Fail", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    games = _group(ladder, table, game_id)
    _record(games[0], game_id, {ann.pk: 1, ben.pk: 2, cid.pk: 3})
    match_claim(match_id=games[1].pk, worker="w")
    Match.objects.filter(pk=games[1].pk).update(attempts=settings.MATCH_MAX_ATTEMPTS)
    assert match_record_failure(match_id=games[1].pk, error="worker exploded") == "failed"
    assert not RatingChange.objects.exists()  # game 3 is still queued
    _record(games[2], game_id, {ann.pk: 1, ben.pk: 2, cid.pk: 3})
    assert RatingChange.objects.count() == 3 and _elo(ladder, ann) == pytest.approx(1208.0)
    assert Rating.objects.get(ladder=ladder, bot=ann).games == 2
    # The failed game re-queued from the admin and played later: kept, unrated, the group untouched.
    assert match_requeue(match_id=games[1].pk)
    _record(Match.objects.get(pk=games[1].pk), game_id, {ann.pk: 3, ben.pk: 2, cid.pk: 1})
    late = Match.objects.get(pk=games[1].pk)
    assert late.status == "done" and late.rated is False
    assert RatingChange.objects.count() == 3 and _elo(ladder, ann) == pytest.approx(1208.0)
    assert "fail: 2 rated match(es), 3 bot(s): ok" in _check("--ladder", "fail")


def test_a_group_whose_last_open_game_fails_is_rated_then(db, table, game_id):
    ladder = ladder_create(slug="last", name="Last", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    games = _group(ladder, table, game_id)
    for match in games[:2]:
        _record(match, game_id, {ann.pk: 1, ben.pk: 2, cid.pk: 3})
    match_claim(match_id=games[2].pk, worker="w")
    Match.objects.filter(pk=games[2].pk).update(attempts=settings.MATCH_MAX_ATTEMPTS)
    match_record_failure(match_id=games[2].pk, error="broker gone")
    assert MatchGroup.objects.get().rated_at is not None
    assert {c.match_id for c in RatingChange.objects.all()} == {games[1].pk}
    assert Rating.objects.get(ladder=ladder, bot=ann).games == 2


def test_a_group_whose_last_game_the_recovery_sweep_fails_is_rated_by_the_sweep(db, table, game_id):
    from datetime import timedelta

    from django.utils import timezone

    from arena.runs.recording import match_groups_settle
    from arena.runs.recovery import recovery_sweep

    ladder = ladder_create(slug="swept", name="Swept", game=game_id, seat_count=3, k_factor=16)
    ann, ben, cid = table
    games = _group(ladder, table, game_id)
    for match in games[:2]:
        _record(match, game_id, {ann.pk: 1, ben.pk: 2, cid.pk: 3})
    match_claim(match_id=games[2].pk, worker="lost")
    Match.objects.filter(pk=games[2].pk).update(attempts=settings.MATCH_MAX_ATTEMPTS,
                                                lease_expires_at=timezone.now() - timedelta(seconds=1))
    report = recovery_sweep(ask_broker=False)
    assert Match.objects.get(pk=games[2].pk).status == "failed"
    assert report.settled_groups == [games[0].group_id]
    group = MatchGroup.objects.get()
    assert group.rated_at is not None and group.finished_at is not None
    assert RatingChange.objects.count() == 3 and _elo(ladder, ann) == pytest.approx(1208.0)
    assert match_groups_settle() == [] and RatingChange.objects.count() == 3  # once


def test_a_tournament_group_is_settled_but_never_rated(db, table, game_id):
    games = match_group_create(game=game_id, versions=[b.active_version for b in table[:2]],
                               kind=Match.Kind.TOURNAMENT)
    for match in games:
        match_claim(match_id=match.pk, worker="w")
        match_record_outcome(match_id=match.pk, outcome=clean_outcome(game_id, 2))
    group = MatchGroup.objects.get()
    assert group.finished_at is not None and group.rated_at is None and not RatingChange.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_last_games_recorded_at_once_rate_the_group_exactly_once(table, game_id, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions need PostgreSQL")
    import arena.runs.recording as recording

    ladder = ladder_create(slug="race", name="Race", game=game_id, seat_count=2, k_factor=16)
    games = match_group_create(game=game_id, versions=[b.active_version for b in table[:2]], ladder=ladder)
    for match in games:
        match_claim(match_id=match.pk, worker="w")
    both_done = threading.Barrier(2, timeout=20)
    real_apply = recording.ratings_apply_group

    def apply_when_both_are_done(**kwargs):
        # Each game is marked done in its own open transaction before either looks at the group:
        # without the group lock neither would see the other finished and the group would stay unrated.
        both_done.wait()
        return real_apply(**kwargs)

    monkeypatch.setattr(recording, "ratings_apply_group", apply_when_both_are_done)
    errors, recorded = [], []

    def record(match_id):
        try:
            recorded.append(match_record_outcome(match_id=match_id, outcome=clean_outcome(game_id, 2)))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=record, args=(m.pk,)) for m in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors and recorded == [True, True]
    assert MatchGroup.objects.get().rated_at is not None
    assert RatingChange.objects.count() == 2
    assert sorted(RatingChange.objects.values_list("sequence", flat=True)) == [1, 1]
    # Each seat 0 won its game: one win each, so the mean is even and nothing moves.
    assert [r.elo for r in Rating.objects.filter(ladder=ladder, bot__in=table[:2])] == [1200.0, 1200.0]


# --- ratings_check over groups -----------------------------------------------------------

def _check(*args) -> str:
    out = StringIO()
    call_command("ratings_check", *args, stdout=out)
    return out.getvalue()


def test_ratings_check_recomputes_groups_and_lone_matches_identically(db, table, game_id):
    from arena.matches.services import match_create

    ladder = ladder_create(slug="mix", name="Mix", game=game_id, seat_count=2, k_factor=16)
    ann, ben, cid = table
    first = match_group_create(game=game_id, versions=[ann.active_version, ben.active_version], ladder=ladder)
    lone = match_create(game=game_id, versions=[ben.active_version, cid.active_version], ladder=ladder)
    second = match_group_create(game=game_id, versions=[cid.active_version, ann.active_version], ladder=ladder)
    _record(first[1], game_id, {ann.pk: 1, ben.pk: 2})
    _record(second[0], game_id, {cid.pk: 1, ann.pk: 2})
    _record(lone, game_id, {ben.pk: 1, cid.pk: 2})
    _record(second[1], game_id, {cid.pk: 1, ann.pk: 1})
    _record(first[0], game_id, {ann.pk: 1, ben.pk: 2})
    assert RatingChange.objects.count() == 6
    assert sorted(RatingChange.objects.filter(bot=ann).values_list("sequence", flat=True)) == [1, 2]
    assert "mix: 5 rated match(es), 3 bot(s): ok" in _check("--ladder", "mix")
    true_elo = _elo(ladder, cid)
    Rating.objects.filter(ladder=ladder, bot=cid).update(elo=true_elo + 3)
    RatingChange.objects.filter(match=first[0], bot=ann).update(after=1.0)
    with pytest.raises(CommandError):
        _check("--ladder", "mix")
    fixed = _check("--fix")
    assert "bot cid: elo stored" in fixed and f"match {first[0].pk}, bot ann" in fixed
    assert _elo(ladder, cid) == pytest.approx(true_elo)
    assert "ok" in _check("--ladder", "mix")
    RatingChange.objects.filter(match=first[0]).delete()
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("ratings_check", "--ladder", "mix", stdout=out)
    assert f"group {first[0].group_id}: rating changes stored none, recomputed one per bot" in out.getvalue()
