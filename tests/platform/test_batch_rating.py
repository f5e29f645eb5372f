"""The batch rating's maths on golden inputs (pure: no database)."""

from __future__ import annotations

import math
import random

import pytest

from competition.ratings.batch import (
    BASE_RATING,
    ELO_SCALE,
    PRIOR_GAMES,
    PROVISIONAL_WIDTH,
    Z95,
    BatchRating,
    fit,
    probability_stronger,
)

A, B, C, D = 1, 2, 3, 4


def game(*order):
    """A game from its finishing order; a tuple inside shares one rank."""
    seats, rank = [], 1
    for place in order:
        tied = place if isinstance(place, tuple) else (place,)
        seats.extend((entrant, rank) for entrant in tied)
        rank += len(tied)
    return seats


def lone(*games):
    return [[g] for g in games]


def rating_of(result):
    return {entrant: r.rating for entrant, r in result.items()}


def slow_log_posterior(theta, games):
    """The documented model written out directly: every pair of a game at weight 1/(N-1), a tie
    half a win each way, plus PRIOR_GAMES drawn games per entrant against log strength 0."""
    def log_sigma(x):
        return -math.log1p(math.exp(-x))

    total = 0.0
    for g in games:
        weight = 1.0 / (len(g) - 1)
        for a in range(len(g)):
            for b in range(a + 1, len(g)):
                (ea, ra), (eb, rb) = g[a], g[b]
                score = 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                diff = theta[ea] - theta[eb]
                total += weight * (score * log_sigma(diff) + (1 - score) * log_sigma(-diff))
    for value in theta.values():
        total += PRIOR_GAMES * (0.5 * log_sigma(value) + 0.5 * log_sigma(-value))
    return total


def slow_fit(games):
    """Coordinate ascent with ternary search: slow, but shares no code with the module."""
    entrants = sorted({e for g in games for e, _ in g})
    theta = {e: 0.0 for e in entrants}
    for _ in range(60):
        for e in entrants:
            low, high = theta[e] - 8.0, theta[e] + 8.0
            for _ in range(80):
                m1, m2 = low + (high - low) / 3, high - (high - low) / 3
                theta[e] = m1
                f1 = slow_log_posterior(theta, games)
                theta[e] = m2
                f2 = slow_log_posterior(theta, games)
                if f1 < f2:
                    low = m1
                else:
                    high = m2
            theta[e] = (low + high) / 2
    mean = sum(theta.values()) / len(theta)
    return {e: BASE_RATING + ELO_SCALE * (t - mean) for e, t in theta.items()}


def test_it_matches_a_direct_maximisation_of_the_likelihood_on_three_bots():
    games = [game(A, B, C), game(A, C, B), game(B, A, C), game(C, (A, B)), game(A, B), game(B, C),
             game(C, A), game(A, B), game((B, C), A)]
    expected = slow_fit(games)
    result = fit(lone(*games), bootstrap=0)
    for entrant, value in expected.items():
        assert result[entrant].rating == pytest.approx(value, abs=1e-3)


def test_ratings_are_on_the_elo_scale_centred_on_the_base():
    result = fit(lone(game(A, B), game(A, B), game(B, A), game(C, A), game(B, C)), bootstrap=0)
    logs = [(r.rating - BASE_RATING) / ELO_SCALE for r in result.values()]
    assert sum(logs) == pytest.approx(0.0, abs=1e-9)


def test_a_four_seat_game_weighs_its_pairs_at_a_third():
    four = game(A, B, C, D)
    pairs = [game(A, B), game(A, C), game(A, D), game(B, C), game(B, D), game(C, D)]
    assert rating_of(fit(lone(four, four, four), bootstrap=0)) == pytest.approx(
        rating_of(fit(lone(*pairs), bootstrap=0)), abs=1e-6)


def test_tied_bots_get_equal_ratings():
    games = [game((A, B), C), game(C, (A, B)), game((A, B), C), game(A, B), game(B, A)]
    result = fit(lone(*games), bootstrap=50)
    assert result[A].rating == pytest.approx(result[B].rating, abs=1e-9)
    assert result[A].rating > result[C].rating


def test_a_tie_moves_ratings_halfway_between_a_win_and_a_loss():
    base = [game(A, C), game(C, B), game(B, A), game(A, C)]
    won = rating_of(fit(lone(*base, game(A, B)), bootstrap=0))
    tied = rating_of(fit(lone(*base, game((A, B))), bootstrap=0))
    lost = rating_of(fit(lone(*base, game(B, A)), bootstrap=0))
    assert lost[A] < tied[A] < won[A]
    assert lost[B] > tied[B] > won[B]


def test_symmetric_results_give_equal_ratings():
    cycle = [game(A, B, C), game(B, C, A), game(C, A, B)]
    result = fit(lone(*cycle, *cycle), bootstrap=30)
    for entrant in (A, B, C):
        assert result[entrant].rating == pytest.approx(BASE_RATING, abs=1e-9)
    assert result[A].high - result[A].low == pytest.approx(result[B].high - result[B].low, rel=0.5)


def test_a_faulted_seat_ranked_last_lowers_that_bot():
    clean = [game(A, B, C, D), game(D, A, C, B), game(C, D, B, A), game(B, C, A, D)]
    faulted = clean[:-1] + [game(C, A, D, B)]  # B led this game, then faulted: ranked last
    before, after = fit(lone(*clean), bootstrap=0), fit(lone(*faulted), bootstrap=0)
    assert after[B].rating < before[B].rating
    assert after[B].games == before[B].games == 4


def test_a_bot_that_won_everything_gets_a_finite_rating():
    result = fit(lone(*[game(A, B, C)] * 40), bootstrap=20)
    assert math.isfinite(result[A].rating) and math.isfinite(result[A].high)
    assert result[A].rating > result[B].rating > result[C].rating


def test_the_order_of_groups_games_and_seats_changes_nothing():
    rng = random.Random(4)
    groups = [[[(e, rng.randint(1, 4)) for e in rng.sample(range(10), 4)] for _ in range(rng.randint(1, 4))]
              for _ in range(60)]
    shuffled = [[rng.sample(g, len(g)) for g in rng.sample(group, len(group))] for group in rng.sample(groups, 60)]
    assert fit(groups, bootstrap=40, seed=3) == fit(shuffled, bootstrap=40, seed=3)
    assert fit(groups, bootstrap=0) == fit(shuffled, bootstrap=0)


def test_it_is_deterministic_for_a_seed():
    groups = lone(game(A, B, C), game(B, A, C), game(C, B, A), game(A, C, B), game(A, B, C))
    assert fit(groups, seed=7) == fit(groups, seed=7)
    assert fit(groups, seed=7) != fit(groups, seed=8)


def test_a_group_counts_its_games_in_the_rating_but_resamples_as_one_unit():
    rng = random.Random(1)
    tables = [rng.sample([A, B, C, D], 4) for _ in range(40)]
    grouped = [[game(*t)] * 4 for t in tables]  # four rotations that all came out alike
    apart = [[g] for group in grouped for g in group]
    together, separate = fit(grouped, seed=2), fit(apart, seed=2)
    assert rating_of(together) == pytest.approx(rating_of(separate), abs=1e-9)
    for entrant in (A, B, C, D):
        assert together[entrant].games == separate[entrant].games == 160
        width_together = together[entrant].high - together[entrant].low
        width_apart = separate[entrant].high - separate[entrant].low
        assert width_together > 1.4 * width_apart  # 40 independent units, not 160


def test_a_group_of_one_game_is_a_lone_match():
    games = [game(A, B), game(B, C), game(C, A), game(A, C)]
    assert fit(lone(*games), seed=1) == fit([[g] for g in games], seed=1)


def test_the_fisher_interval_is_centred_and_narrows_with_games():
    few = fit(lone(*[game(A, B), game(B, A)] * 3), bootstrap=0)
    many = fit(lone(*[game(A, B), game(B, A)] * 300), bootstrap=0)
    for result in (few, many):
        r = result[A]
        assert r.rating - r.low == pytest.approx(r.high - r.rating)
    assert many[A].high - many[A].low < few[A].high - few[A].low
    assert few[A].provisional and not many[A].provisional
    assert many[A].high - many[A].low <= PROVISIONAL_WIDTH


def test_the_fisher_interval_of_two_even_bots_has_the_textbook_width():
    # 2 bots, n decisive games split evenly: theta_A - theta_B has variance 1/(n/4 + prior
    # terms); A's rating is half the difference from the mean.
    n = 400
    result = fit(lone(*[game(A, B), game(B, A)] * (n // 2)), bootstrap=0)
    information_difference = n * 0.25 + PRIOR_GAMES * 0.25 / 2
    expected_sd = ELO_SCALE * 0.5 / math.sqrt(information_difference)
    assert (result[A].high - result[A].rating) / Z95 == pytest.approx(expected_sd, rel=1e-6)


def test_bad_games_are_rejected():
    with pytest.raises(ValueError):
        fit([[[(A, 1), (A, 2)]]])
    with pytest.raises(ValueError):
        fit([[[(A, 0), (B, 1)]]])
    with pytest.raises(ValueError):
        fit([[game(A, B)]], bootstrap=-1)
    assert fit([]) == {}


def rating(value, half_width):
    return BatchRating(rating=value, low=value - half_width, high=value + half_width, games=10,
                       provisional=False)


def test_a_bot_is_as_likely_stronger_than_itself_as_not():
    a = rating(1600, 80)
    assert probability_stronger(a, a) == 0.5
    assert probability_stronger(rating(1500, 0), rating(1500, 0)) == 0.5


def test_probability_stronger_is_monotone_and_complementary():
    b = rating(1500, 100)
    values = [probability_stronger(rating(x, 100), b) for x in range(1300, 1701, 25)]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert probability_stronger(rating(1550, 60), b) + probability_stronger(b, rating(1550, 60)) == pytest.approx(1)


def test_probability_stronger_has_the_normal_value():
    sd = 50.0
    a, b = rating(1600, Z95 * sd), rating(1500, Z95 * sd)
    # difference 100, spread 50 * sqrt(2): Phi(sqrt(2)) = 0.92135
    assert probability_stronger(a, b) == pytest.approx(0.9213504, abs=1e-6)
    assert probability_stronger(rating(1600, 0), rating(1500, 0)) == 1.0


def simulated_ladder(bots, games, seats, seed):
    rng = random.Random(seed)
    strength = [rng.gauss(0, 1.0) for _ in range(bots)]
    groups = []
    for _ in range(games):
        table = rng.sample(range(bots), seats)
        order = sorted(table, key=lambda b: -(strength[b] + rng.gauss(0, 1.0)))
        groups.append([[(b, place + 1) for place, b in enumerate(order)]])
    return groups


@pytest.mark.parametrize("seats", [2, 4])
def test_the_fisher_interval_agrees_with_the_bootstrap(seats):
    groups = simulated_ladder(bots=8, games=1600 // seats, seats=seats, seed=seats)
    bootstrap, fisher = fit(groups, bootstrap=300, seed=1), fit(groups, bootstrap=0)
    for entrant in bootstrap:
        assert bootstrap[entrant].rating == fisher[entrant].rating
    mean_width = {name: sum(r.high - r.low for r in result.values()) / len(result)
                  for name, result in (("bootstrap", bootstrap), ("fisher", fisher))}
    assert mean_width["fisher"] == pytest.approx(mean_width["bootstrap"], rel=0.2)


def test_the_fisher_interval_widens_for_games_that_share_their_chance():
    rng = random.Random(1)
    tables = [rng.sample([A, B, C, D], 4) for _ in range(40)]
    grouped = [[game(*t)] * 4 for t in tables]
    apart = [[g] for group in grouped for g in group]
    together, separate = fit(grouped, bootstrap=0), fit(apart, bootstrap=0)
    for entrant in (A, B, C, D):
        assert together[entrant].high - together[entrant].low > 1.4 * (separate[entrant].high - separate[entrant].low)
