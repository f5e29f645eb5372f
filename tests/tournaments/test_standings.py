"""Standings maths: points by place, ties, faults, group means, tie-breaks (pure, no database)."""

from __future__ import annotations

import pytest

from competition.formats.standings import (
    GameResult,
    advancers,
    default_points,
    game_points,
    points_for_size,
    standings,
    table_results,
)


def test_default_points_run_from_k_minus_one_down_to_zero():
    assert default_points(4) == [3.0, 2.0, 1.0, 0.0]
    assert default_points(1) == [0.0]


def test_tied_seats_share_the_mean_of_their_places():
    assert game_points([1, 1, 3], [False, False, False], [2, 1, 0]) == [1.5, 1.5, 0.0]
    assert game_points([2, 1, 2, 2], [False] * 4, [3, 2, 1, 0]) == [1.0, 3.0, 1.0, 1.0]


def test_a_faulted_seat_ranks_below_every_seat_that_did_not_fault():
    # Seat 0 had the best engine rank but faulted: it takes the last place's points.
    assert game_points([1, 2, 3], [True, False, False], [2, 1, 0]) == [0.0, 2.0, 1.0]
    assert game_points([1, 2, 3], [True, True, False], [2, 1, 0]) == [1.0, 0.0, 2.0]


def test_a_smaller_table_spreads_its_places_over_the_full_scale():
    assert points_for_size([3, 2, 1, 0], 3) == [3.0, 1.5, 0.0]
    assert points_for_size([3, 2, 1, 0], 2) == [3.0, 0.0]
    assert points_for_size([5, 3, 0], 3) == [5.0, 3.0, 0.0]


def game(table, entrants, ranks, scores=None, faulted=None):
    return GameResult(table=table, entrants=tuple(entrants), ranks=tuple(ranks),
                      scores=tuple(scores or [10.0 * (len(ranks) - r) for r in ranks]),
                      faulted=tuple(faulted or [False] * len(ranks)))


def test_a_table_result_is_the_mean_points_over_its_rotation_group():
    games = [game(1, [1, 2, 3], [1, 2, 3]), game(1, [2, 3, 1], [1, 2, 3]), game(1, [3, 1, 2], [2, 1, 3])]
    # Entrant 1 places 1st, 3rd, 2nd -> 2, 0, 1; entrant 2: 2nd, 1st, 3rd -> 1, 2, 0; entrant 3: 3rd, 2nd, 1st.
    assert table_results(games, [2, 1, 0]) == {1: {1: 4 / 3, 2: 1.0, 3: 2 / 3}}


def test_standings_order_by_points_then_buchholz_then_score():
    tables = {1: [1, 2], 2: [3, 4], 3: [1, 3], 4: [2, 4]}
    games = [game(1, [1, 2], [1, 2]), game(2, [3, 4], [1, 2]),
             game(3, [1, 3], [2, 1], scores=[5.0, 7.0]), game(4, [2, 4], [1, 2], scores=[9.0, 1.0])]
    rows = standings([1, 2, 3, 4], tables, games, [1, 0])
    by = {r.entrant: r for r in rows}
    assert [r.entrant for r in rows][:1] == [3]  # 2 points
    assert by[3].points == 2 and by[1].points == 1 and by[2].points == 1 and by[4].points == 0
    # 1 and 2 tie on points; Buchholz: 1 met 2 (1) and 3 (2) = 3; 2 met 1 (1) and 4 (0) = 1.
    assert by[1].buchholz == 3 and by[2].buchholz == 1
    assert [r.entrant for r in rows] == [3, 1, 2, 4]
    assert [r.position for r in rows] == [1, 2, 3, 4]
    assert by[1].games == 2 and by[1].mean_rank == 1.5


def test_head_to_head_breaks_a_tie_that_survives_points_buchholz_and_score():
    # One table of three: everyone ends on 3 points and 6 Buchholz; 3 leads on score; 1 and 2 tie on
    # score too, and 2 placed above 1 in two of the three games.
    a, b, c = 1, 2, 3
    games = [game(1, [a, c, b], [1, 2, 3], scores=[5.0, 4.0, 3.0]),
             game(1, [b, a, c], [1, 2, 3], scores=[4.0, 3.0, 2.0]),
             game(1, [c, b, a], [1, 2, 3], scores=[14.0, 3.0, 2.0])]
    rows = standings([a, b, c], {1: [a, b, c]}, games, [2, 1, 0])
    by = {r.entrant: r for r in rows}
    assert by[a].points == by[b].points == by[c].points == pytest.approx(1.0)
    assert by[a].buchholz == by[b].buchholz == pytest.approx(2.0)
    assert by[a].score == by[b].score == 10.0 and by[c].score == 20.0
    assert by[b].head_to_head == 1 and by[a].head_to_head == -1
    assert [r.entrant for r in rows] == [c, b, a] and [r.position for r in rows] == [1, 2, 3]


def test_entrants_tied_on_everything_share_a_position():
    rows = standings([1, 2, 3], {1: [1, 2]}, [game(1, [1, 2], [1, 1], scores=[3.0, 3.0])], [1, 0])
    assert [(r.entrant, r.position) for r in rows] == [(1, 1), (2, 1), (3, 3)]


def test_faults_are_counted_and_a_solo_tournament_ranks_by_score():
    games = [game(1, [1], [1], scores=[40.0]), game(2, [2], [1], scores=[55.0], faulted=[True]),
             game(3, [3], [1], scores=[10.0])]
    rows = standings([1, 2, 3], {1: [1], 2: [2], 3: [3]}, games, [0], solo=True)
    assert [r.entrant for r in rows] == [2, 1, 3]
    assert rows[0].faults == 1 and rows[1].faults == 0


def test_elimination_advances_the_top_m_by_table_result_then_score_then_seed():
    assert advancers([5, 6, 7], {5: 1.0, 6: 1.0, 7: 2.0}, {5: 3.0, 6: 4.0, 7: 0.0}, {5: 1, 6: 2, 7: 3}, 2) == [7, 6]
    assert advancers([5, 6, 7], {5: 1.0, 6: 1.0, 7: 2.0}, {}, {5: 2, 6: 1, 7: 3}, 2) == [7, 6]
