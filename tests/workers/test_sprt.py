"""The A/B test's statistics (workers/sprt.py): pair classes, the two test martingales and their
bounds, the false-H1 rate they guarantee, Elo with its interval."""

from __future__ import annotations

import math
import random

import pytest

from workers import sprt

# A pair's mean and the two games' results that give it.
GAMES_OF = {0.0: (0, 0), 0.25: (0, 0.5), 0.5: (1, 0), 0.75: (1, 0.5), 1.0: (1, 1)}


def tally_of(pairs: list[tuple[float, float]], elo0: float = 0, elo1: float = 10) -> sprt.Tally:
    tally = sprt.Tally(elo0=elo0, elo1=elo1)
    for first, second in pairs:
        tally.add_pair(first, second)
    return tally


def test_expected_score_and_elo_are_inverse_and_symmetric():
    for elo in (-400, -35.5, 0, 10, 200):
        assert sprt.elo_of_score(sprt.expected_score(elo)) == pytest.approx(elo)
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    assert sprt.expected_score(-10) == pytest.approx(1 - sprt.expected_score(10))


def test_the_bounds_are_villes_log_one_over_alpha_and_log_beta():
    lower, upper = sprt.bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1)) and upper == pytest.approx(math.log(20))
    with pytest.raises(ValueError):
        sprt.bounds(0, 0.05)
    with pytest.raises(ValueError):
        sprt.bounds(0.05, 0.5)


def test_a_pair_falls_into_one_of_five_classes_and_bad_results_are_refused():
    tally = tally_of([(1, 1), (1, 0.5), (0, 1), (0.5, 0), (0, 0), (1, 0)])
    assert tally.counts == [1, 1, 2, 1, 1]
    assert tally.pairs == 6 and tally.games == 12
    before = tally.to_dict()
    with pytest.raises(ValueError):
        tally.add_pair(0.3, 1)
    assert tally.to_dict() == before
    with pytest.raises(ValueError):
        sprt.Tally(elo0=10, elo1=10)


def test_the_wealths_follow_the_betting_formula_with_stakes_from_the_pairs_before():
    s0, s1 = 0.5, sprt.expected_score(40)
    gap = s1 - s0
    tally = sprt.Tally(elo0=0, elo1=40)
    log_w1 = log_w0 = 0.0
    seen: list[float] = []
    for x in (1.0, 0.5, 0.75, 0.0, 1.0):
        n = len(seen)
        mean = sum(seen) / n if n else 0.5
        variance = sum((y - mean) ** 2 for y in seen) / n if n else 0.0
        shrunk = (n * variance + sprt.PRIOR_PAIRS * sprt.PRIOR_VARIANCE) / (n + sprt.PRIOR_PAIRS)
        stake = gap / (shrunk + gap * gap)
        assert tally.stakes() == pytest.approx((stake, stake))
        log_w1 += math.log(1 + stake * (x - s0))
        log_w0 += math.log(1 + stake * (s1 - x))
        tally.add_pair(*GAMES_OF[x])
        seen.append(x)
    assert tally.log_w1 == pytest.approx(log_w1) and tally.log_w0 == pytest.approx(log_w0)
    assert sprt.llr(tally) == pytest.approx(log_w1 if log_w1 >= log_w0 else -log_w0)


def test_the_evidence_depends_on_the_order_of_the_pairs_not_only_their_counts():
    # Stakes are chosen before each pair from the ones before it: that is what makes W a martingale.
    first = tally_of([(1, 1)] * 5 + [(0, 0)] * 5)
    second = tally_of([(0, 0)] * 5 + [(1, 1)] * 5)
    assert first.counts == second.counts
    assert first.log_w1 != pytest.approx(second.log_w1)


def test_a_stake_never_risks_more_than_its_cap():
    tally = tally_of([(1, 0)] * 200, elo0=0, elo1=400)      # no variance, a huge gap
    lam, mu = tally.stakes()
    assert lam * 0.5 == pytest.approx(sprt.STAKE_CAP)
    assert mu * (1 - sprt.expected_score(400)) <= sprt.STAKE_CAP + 1e-12
    tally.add_pair(0, 0)
    assert math.isfinite(tally.log_w1)


def test_b_winning_every_pair_is_h1_but_not_before_the_minimum_pairs():
    tally = sprt.Tally()
    for _pair in range(sprt.MIN_PAIRS):
        assert sprt.verdict(tally, 0.05, 0.05) == "undecided"
        tally.add_pair(1, 1)
    while sprt.verdict(tally, 0.05, 0.05) == "undecided":
        tally.add_pair(1, 1)
        assert tally.pairs < 40
    assert sprt.verdict(tally, 0.05, 0.05) == "H1"
    assert sprt.llr(tally) >= math.log(20)
    assert sprt.elo_estimate(tally)[0] > 1000


def test_a_bot_mirroring_itself_is_h0_with_a_finite_llr():
    # Two deterministic copies of one bot: every pair one win each, no variance at all. A pair
    # mean of exactly 1/2 is also what a B stronger by 10 Elo gives most of the time (a rare sweep
    # for B makes up the mean), so ruling H1 out takes a couple of hundred pairs, not a few.
    tally = tally_of([(1, 0)] * 60)
    assert sprt.verdict(tally, 0.05, 0.05) == "undecided" and sprt.llr(tally) < 0
    while sprt.verdict(tally, 0.05, 0.05) == "undecided":
        tally.add_pair(1, 0)
        assert math.isfinite(sprt.llr(tally)) and tally.pairs < 400
    assert sprt.verdict(tally, 0.05, 0.05) == "H0"
    assert tally.log_w1 == 0.0                 # X = s0 exactly: W1 neither wins nor loses
    elo, (lo, hi) = sprt.elo_estimate(tally)
    assert elo == pytest.approx(0) and lo < 0 < hi


def test_an_even_noisy_record_stays_undecided_and_its_interval_holds_zero():
    tally = tally_of([(1, 1), (0, 0), (1, 0), (0.5, 0.5)] * 5)
    assert sprt.verdict(tally, 0.05, 0.05) == "undecided"
    elo, (lo, hi) = sprt.elo_estimate(tally)
    assert elo == pytest.approx(0) and lo < -50 and hi > 50


def _simulated_verdicts(classes: list[float], elo0: float, elo1: float, runs: int, max_pairs: int) -> dict:
    verdicts = {"H1": 0, "H0": 0, "undecided": 0}
    for run in range(runs):
        rng = random.Random(run)
        tally = sprt.Tally(elo0=elo0, elo1=elo1)
        while tally.pairs < max_pairs and sprt.verdict(tally, 0.05, 0.05) == "undecided":
            tally.add_pair(*GAMES_OF[rng.choice(classes)])
        verdicts[sprt.verdict(tally, 0.05, 0.05)] += 1
    return verdicts


def test_a_a_runs_with_wide_hypotheses_say_h1_at_most_alpha_of_the_time():
    # The pair distribution that is hardest on a short test: every pair a sweep, one way or the
    # other (variance 1/4), at 0/80 Elo (a hundred-odd games a run). The normal-approximation
    # GSPRT said H1 in 8 % of these runs; the martingale's rate is bounded by alpha.
    verdicts = _simulated_verdicts([0.0, 1.0], 0, 80, runs=600, max_pairs=1000)
    assert verdicts["undecided"] == 0
    assert verdicts["H1"] / 600 <= 0.05


def test_a_true_h1_is_found_at_least_one_minus_beta_of_the_time():
    # B's expected pair score exactly s1 = L(80): 0 or 1 in the right proportion.
    s1 = sprt.expected_score(80)
    classes = [1.0] * round(1000 * s1) + [0.0] * (1000 - round(1000 * s1))
    verdicts = _simulated_verdicts(classes, 0, 80, runs=300, max_pairs=2000)
    assert verdicts["H0"] / 300 <= 0.05 and verdicts["H1"] / 300 >= 0.9


def test_head_to_head_reads_ranks_or_values():
    assert sprt.head_to_head(0, 2, [2, 3, 1]) == 1.0
    assert sprt.head_to_head(2, 0, [2, 3, 1]) == 0.0
    assert sprt.head_to_head(0, 1, [1, 1, 3]) == 0.5
    assert sprt.head_to_head(0, 1, [1, 2], values=[3.5, 7.25]) == 1.0


def test_the_report_has_the_contract_fields_and_survives_a_round_trip():
    tally = tally_of([(1, 1)] * 20)
    data = sprt.report(tally, 0.05, 0.05)
    assert {"games", "pairs", "a_mean_score", "b_mean_score", "elo", "elo_ci", "llr", "bounds",
            "verdict"} <= set(data)
    assert data["verdict"] == "H1" and data["games"] == 40
    assert sprt.Tally.from_dict(tally.to_dict()) == tally


def test_a_tally_stored_before_the_martingales_keeps_its_counts_and_starts_its_evidence_at_one():
    old = {"counts": [0, 0, 3, 0, 4], "a_score_sum": 10.0, "b_score_sum": 30.0}
    tally = sprt.Tally.from_dict(old, elo0=5, elo1=25)
    assert tally.counts == [0, 0, 3, 0, 4] and (tally.elo0, tally.elo1) == (5, 25)
    assert tally.log_w1 == 0.0 and tally.log_w0 == 0.0
