"""The score-margin batch rating's maths on golden inputs (pure: no database)."""

from __future__ import annotations

import math
import random

import pytest

from competition.ratings.batch import BASE_RATING, ELO_SCALE, PRIOR_GAMES
from competition.ratings.batch_scores import PROBIT_TO_LOGIT, fit_scores

A, B, C, D = 1, 2, 3, 4


def lone(*games):
    return [[g] for g in games]


def rating_of(result):
    return {entrant: r.rating for entrant, r in result.items()}


def direct_least_squares(games):
    """The documented model written out directly: one design row per seat (1 for its entrant,
    -1/N for every entrant at its table), the table-centred score as the observation, the prior
    as PRIOR_GAMES / 2 on the diagonal; the normal equations solved by Gaussian elimination.
    Returns the strengths and the residual variance; shares no code with the module."""
    entrants = sorted({e for g in games for e, _ in g})
    position = {e: k for k, e in enumerate(entrants)}
    count = len(entrants)
    rows, observations = [], []
    for g in games:
        n = len(g)
        mean = sum(score for _, score in g) / n
        for entrant, score in g:
            row = [0.0] * count
            for other, _ in g:
                row[position[other]] -= 1.0 / n
            row[position[entrant]] += 1.0
            rows.append(row)
            observations.append(score - mean)
    matrix = [[sum(r[a] * r[b] for r in rows) + (PRIOR_GAMES / 2 if a == b else 0.0) for b in range(count)]
              for a in range(count)]
    rhs = [sum(r[a] * y for r, y in zip(rows, observations)) for a in range(count)]
    for col in range(count):  # elimination without pivoting: the matrix is positive definite
        for r in range(col + 1, count):
            factor = matrix[r][col] / matrix[col][col]
            matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[col])]
            rhs[r] -= factor * rhs[col]
    theta = [0.0] * count
    for r in reversed(range(count)):
        theta[r] = (rhs[r] - sum(matrix[r][c] * theta[c] for c in range(r + 1, count))) / matrix[r][r]
    residuals = [y - sum(x * t for x, t in zip(row, theta)) for row, y in zip(rows, observations)]
    freedom = sum(len(g) - 1 for g in games) - (count - 1)
    variance = sum(r * r for r in residuals) / freedom
    return dict(zip(entrants, theta)), variance


def test_it_matches_a_direct_least_squares_on_four_seat_games():
    rng = random.Random(3)
    games = []
    for _ in range(40):
        table = rng.sample([A, B, C, D, 5, 6], 4)
        games.append([(e, round(10 - e + rng.gauss(0, 4), 1)) for e in table])
    theta, variance = direct_least_squares(games)
    scale = ELO_SCALE * PROBIT_TO_LOGIT / math.sqrt(2 * variance)
    mean = sum(theta.values()) / len(theta)
    result = rating_of(fit_scores(lone(*games), bootstrap=0))
    for entrant, value in theta.items():
        assert result[entrant] == pytest.approx(BASE_RATING + scale * (value - mean), abs=1e-6)


def test_two_bots_get_the_textbook_thurstone_ratings():
    # A beats B by 4, 2 and loses by 3 (margins 4, 2, -3): d = sum / (games + prior) = 3 / 3.5.
    games = [[(A, 10), (B, 6)], [(A, 7), (B, 5)], [(A, 2), (B, 5)]]
    d = 3 / (3 + PRIOR_GAMES / 2)
    variance = sum((m - d) ** 2 / 2 for m in (4, 2, -3)) / (3 - 1)  # residual per seat: (m - d) / 2
    expected = ELO_SCALE * PROBIT_TO_LOGIT * d / math.sqrt(2 * variance)
    result = fit_scores(lone(*games), bootstrap=0)
    assert result[A].rating - result[B].rating == pytest.approx(expected, abs=1e-9)
    assert result[A].rating + result[B].rating == pytest.approx(2 * BASE_RATING, abs=1e-9)


def test_a_game_s_score_units_and_offset_change_nothing():
    rng = random.Random(5)
    games = [[(e, float(rng.randint(0, 30))) for e in rng.sample([A, B, C, D], 3)] for _ in range(30)]
    shifted = [[(e, s + 100.0) for e, s in g] for g in games]
    scaled = [[(e, 7.0 * s) for e, s in g] for g in games]
    base = rating_of(fit_scores(lone(*games), bootstrap=0))
    for other in (shifted, scaled):
        for entrant, value in rating_of(fit_scores(lone(*other), bootstrap=0)).items():
            assert value == pytest.approx(base[entrant], abs=1e-6)


def test_a_bigger_margin_gives_a_higher_rating_where_ranks_are_the_same():
    close = [[(A, 11), (B, 10), (C, 0)], [(B, 11), (C, 10), (A, 0)], [(C, 11), (A, 10), (B, 0)]] * 3
    # A wins its games by more: same ranks, more points.
    wide = [[(A, 30), (B, 10), (C, 0)], [(B, 11), (C, 10), (A, 0)], [(C, 11), (A, 10), (B, 0)]] * 3
    even, ahead = rating_of(fit_scores(lone(*close), bootstrap=0)), rating_of(fit_scores(lone(*wide), bootstrap=0))
    assert even[A] == pytest.approx(even[B], abs=1e-6) == pytest.approx(even[C], abs=1e-6)
    assert ahead[A] > ahead[B] and ahead[A] > ahead[C]


def test_equal_scores_everywhere_give_every_bot_the_base_rating():
    result = fit_scores(lone([(A, 5), (B, 5)], [(B, 5), (C, 5)]), bootstrap=0)
    assert all(r.rating == pytest.approx(BASE_RATING) for r in result.values())


def test_the_order_of_groups_games_and_seats_changes_nothing():
    rng = random.Random(7)
    groups = [[[(e, float(rng.randint(0, 20))) for e in rng.sample([A, B, C, D], 4)] for _ in range(2)]
              for _ in range(25)]
    shuffled = [list(reversed([list(reversed(g)) for g in group])) for group in reversed(groups)]
    assert fit_scores(groups, seed=3) == fit_scores(shuffled, seed=3)


def test_a_group_counts_its_games_in_the_rating_but_resamples_as_one_unit():
    rng = random.Random(11)
    grouped = []
    for _ in range(40):
        table = rng.sample([A, B, C, D], 2)
        grouped.append([[(table[0], s0), (table[1], s1)] for s0, s1 in
                        [(rng.randint(0, 9) + table[0], rng.randint(0, 9) + table[1]) for _ in range(2)]])
    apart = [[g] for group in grouped for g in group]
    together, separate = fit_scores(grouped, bootstrap=0), fit_scores(apart, bootstrap=0)
    assert rating_of(together) == pytest.approx(rating_of(separate), abs=1e-9)
    assert all(together[e].games == separate[e].games for e in together)


def test_the_fisher_interval_widens_for_games_that_share_their_chance():
    rng = random.Random(1)
    grouped = []
    for _ in range(40):
        table = rng.sample([A, B, C, D], 4)
        scores = [rng.gauss(e, 3) for e in table]
        grouped.append([list(zip(table, scores))] * 4)  # four games that came out alike
    apart = [[g] for group in grouped for g in group]
    together, separate = fit_scores(grouped, bootstrap=0), fit_scores(apart, bootstrap=0)
    for entrant in (A, B, C, D):
        assert together[entrant].high - together[entrant].low > 1.4 * (separate[entrant].high - separate[entrant].low)


@pytest.mark.parametrize("seats", [2, 4])
def test_the_fisher_interval_agrees_with_the_bootstrap(seats):
    rng = random.Random(seats)
    groups = []
    for _ in range(1600 // seats):
        table = rng.sample(range(8), seats)
        groups.append([[(b, -b + rng.gauss(0, 6)) for b in table]])
    bootstrap, fisher = fit_scores(groups, bootstrap=300, seed=1), fit_scores(groups, bootstrap=0)
    for entrant in bootstrap:
        assert bootstrap[entrant].rating == fisher[entrant].rating
        assert bootstrap[entrant].low <= bootstrap[entrant].rating <= bootstrap[entrant].high
    mean_width = {name: sum(r.high - r.low for r in result.values()) / len(result)
                  for name, result in (("bootstrap", bootstrap), ("fisher", fisher))}
    assert mean_width["fisher"] == pytest.approx(mean_width["bootstrap"], rel=0.2)


def test_a_bot_with_few_games_is_provisional_and_many_games_narrow_it():
    rng = random.Random(2)
    few = [[[(A, rng.gauss(1, 5)), (B, rng.gauss(0, 5))]] for _ in range(5)]
    many = few + [[[(A, rng.gauss(1, 5)), (B, rng.gauss(0, 5))]] for _ in range(400)]
    small, large = fit_scores(few, bootstrap=0), fit_scores(many, bootstrap=0)
    assert small[A].provisional and not large[A].provisional
    assert large[A].high - large[A].low < small[A].high - small[A].low


def test_it_is_deterministic_for_a_seed():
    rng = random.Random(4)
    groups = [[[(e, float(rng.randint(0, 9))) for e in rng.sample([A, B, C], 2)]] for _ in range(30)]
    assert fit_scores(groups, seed=1) == fit_scores(groups, seed=1)


def test_bad_games_are_rejected():
    with pytest.raises(ValueError, match="two seats"):
        fit_scores([[[(A, 1.0), (A, 2.0)]]])
    with pytest.raises(ValueError, match="finite"):
        fit_scores([[[(A, 1.0), (B, math.nan)]]])
    with pytest.raises(ValueError, match="bootstrap"):
        fit_scores([], bootstrap=-1)
    assert fit_scores([]) == {}
