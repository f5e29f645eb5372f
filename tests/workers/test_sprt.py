"""The A/B test's statistics (workers/sprt.py): pair classes, the SPRT's LLR and bounds, Elo with its interval."""

from __future__ import annotations

import math

import pytest

from workers import sprt


def tally_of(pairs: list[tuple[float, float]]) -> sprt.Tally:
    tally = sprt.Tally()
    for first, second in pairs:
        tally.add_pair(first, second)
    return tally


def test_expected_score_and_elo_are_inverse_and_symmetric():
    for elo in (-400, -35.5, 0, 10, 200):
        assert sprt.elo_of_score(sprt.expected_score(elo)) == pytest.approx(elo)
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    assert sprt.expected_score(-10) == pytest.approx(1 - sprt.expected_score(10))


def test_the_bounds_are_walds():
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    with pytest.raises(ValueError):
        sprt.bounds(0, 0.05)
    with pytest.raises(ValueError):
        sprt.bounds(0.05, 0.5)


def test_a_pair_falls_into_one_of_five_classes_and_bad_results_are_refused():
    tally = tally_of([(1, 1), (1, 0.5), (0, 1), (0.5, 0), (0, 0), (1, 0)])
    assert tally.counts == [1, 1, 2, 1, 1]
    assert tally.pairs == 6 and tally.games == 12
    with pytest.raises(ValueError):
        tally.add_pair(0.3, 1)
    assert tally.counts == [1, 1, 2, 1, 1]


def test_the_llr_matches_the_normal_gsprt_formula_by_hand():
    tally = tally_of([(1, 1)] * 6 + [(1, 0)] * 10 + [(0, 0)] * 4)
    n, mean = 20, (6 * 1 + 10 * 0.5) / 20
    variance = (6 * (1 - mean) ** 2 + 10 * (0.5 - mean) ** 2 + 4 * mean ** 2) / n
    s0, s1 = sprt.expected_score(0), sprt.expected_score(10)
    expected = (n * ((mean - s0) ** 2 - (mean - s1) ** 2)) / (2 * variance)
    assert sprt.llr(tally, 0, 10) == pytest.approx(expected)


def test_b_winning_every_pair_is_h1_but_not_before_the_minimum_pairs():
    tally = sprt.Tally()
    for _pair in range(sprt.MIN_PAIRS):
        assert sprt.verdict(tally, 0, 10, 0.05, 0.05) == "undecided"
        tally.add_pair(1, 1)
    assert sprt.verdict(tally, 0, 10, 0.05, 0.05) == "H1"
    assert sprt.elo_estimate(tally)[0] > 1000


def test_a_bot_mirroring_itself_is_h0_with_a_finite_llr():
    # Two deterministic copies of one bot: every pair one win each, no variance at all.
    tally = tally_of([(1, 0)] * 40)
    assert math.isfinite(sprt.llr(tally, 0, 10))
    assert sprt.verdict(tally, 0, 10, 0.05, 0.05) == "H0"
    elo, (lo, hi) = sprt.elo_estimate(tally)
    assert elo == pytest.approx(0) and lo < 0 < hi


def test_an_even_noisy_record_stays_undecided_and_its_interval_holds_zero():
    tally = tally_of([(1, 1), (0, 0), (1, 0), (0.5, 0.5)] * 5)
    assert sprt.verdict(tally, 0, 10, 0.05, 0.05) == "undecided"
    elo, (lo, hi) = sprt.elo_estimate(tally)
    assert elo == pytest.approx(0) and lo < -50 and hi > 50


def test_head_to_head_reads_ranks_or_values():
    assert sprt.head_to_head(0, 2, [2, 3, 1]) == 1.0
    assert sprt.head_to_head(2, 0, [2, 3, 1]) == 0.0
    assert sprt.head_to_head(0, 1, [1, 1, 3]) == 0.5
    assert sprt.head_to_head(0, 1, [1, 2], values=[3.5, 7.25]) == 1.0


def test_the_report_has_the_contract_fields_and_survives_a_round_trip():
    tally = tally_of([(1, 1)] * 12)
    data = sprt.report(tally, 0, 10, 0.05, 0.05)
    assert {"games", "pairs", "a_mean_score", "b_mean_score", "elo", "elo_ci", "llr", "bounds",
            "verdict"} <= set(data)
    assert data["verdict"] == "H1" and data["games"] == 24
    assert sprt.Tally.from_dict(tally.to_dict()) == tally
