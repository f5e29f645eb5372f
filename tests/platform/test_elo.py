"""Elo as a pure function, checked against values computed by hand from the Elo formula
E = 1 / (1 + 10 ** ((Rb - Ra) / 400)), R' = R + K * sum(S - E)."""

from __future__ import annotations

import pytest

from competition.ratings.elo import elo_rate, pairwise_scores


def test_a_two_player_win_moves_both_ratings_by_the_hand_computed_amount():
    new = elo_rate(ratings=[1200, 1000], ranks=[1, 2], k_factor=32)
    assert new == pytest.approx([1207.6881, 992.3119], abs=1e-4)


def test_a_two_player_game_conserves_total_rating():
    for ranks in ([1, 2], [2, 1], [1, 1]):
        new = elo_rate(ratings=[1534.5, 1187.25], ranks=ranks, k_factor=24)
        assert sum(new) == pytest.approx(1534.5 + 1187.25)


def test_an_upset_gains_more_than_an_expected_win():
    underdog = elo_rate(ratings=[1000, 1200], ranks=[1, 2], k_factor=32)[0] - 1000
    favourite = elo_rate(ratings=[1200, 1000], ranks=[1, 2], k_factor=32)[0] - 1200
    assert underdog == pytest.approx(32 - 7.6881, abs=1e-4) and favourite == pytest.approx(7.6881, abs=1e-4)


def test_a_draw_between_equals_changes_nothing():
    assert elo_rate(ratings=[1300, 1300], ranks=[1, 1], k_factor=32) == [1300, 1300]


def test_four_equal_players_split_k_over_three_opponents():
    # K=30 over 3 opponents: each pairwise game is worth 10 * (S - 0.5).
    new = elo_rate(ratings=[1200] * 4, ranks=[1, 2, 3, 4], k_factor=30)
    assert new == pytest.approx([1215, 1205, 1195, 1185])


def test_a_four_player_match_with_a_fault_and_a_tie_matches_the_hand_computation():
    # Seat 1 ranked first but faulted: it loses to everyone; seats 2 and 3 tie (draw).
    new = elo_rate(ratings=[1300, 1200, 1100, 1000], ranks=[2, 1, 3, 3],
                   faulted=[False, True, False, False], k_factor=30)
    assert new == pytest.approx([1307.5117, 1182.4025, 1102.5975, 1007.4883], abs=1e-4)
    assert sum(new) == pytest.approx(4600)


def test_a_faulted_seat_loses_to_every_seat_that_did_not_fault():
    table = pairwise_scores(ranks=[1, 2, 3], faulted=[True, False, True])
    assert table[0] == [None, 0.0, 1.0]  # faulted seats compare by rank among themselves
    assert table[1] == [1.0, None, 1.0]
    assert table[2] == [0.0, 0.0, None]


def test_a_single_seat_keeps_its_rating():
    assert elo_rate(ratings=[1234.0], ranks=[1], k_factor=32) == [1234.0]
