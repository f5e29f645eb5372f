"""The official rating's reading of results (competition/ratings/official.py): play where luck is
measured, raw scores elsewhere, the game's transform, faults capped, seat effects where they pay."""

from __future__ import annotations

import math
import random

import pytest

from competition.ratings.batch import PROVISIONAL_WIDTH
from competition.ratings.batch_scores import fit_scores
from competition.ratings.official import (
    INTERVAL_WIDENING,
    LOG_TYPICAL_SCORE,
    SEAT_EFFECT_MIN_GAMES,
    official_fit,
    official_read,
    seat_effects_pay,
    signed_log,
)


def _ladder(seed: int, *, seat_edge=(0.0, 0.0, 0.0, 0.0), luck_sd=0.0, noise_sd=3.0, tables=240, measured=1.0):
    """Eight bots of strengths 0, 2, .., 14 at random 4-seat tables: a seat's score is its bot's
    strength, its seat's edge, its luck (known when measured) and noise."""
    rng = random.Random(seed)
    units = []
    for _ in range(tables):
        table = rng.sample(range(8), 4)
        known = rng.random() < measured
        game = []
        for seat, bot in enumerate(table):
            luck = rng.gauss(0.0, luck_sd)
            score = 2.0 * bot + seat_edge[seat] + luck + rng.gauss(0.0, noise_sd)
            game.append((bot, seat, score, luck if known else None, False))
        units.append([game])
    return units


def _order_errors(ratings) -> int:
    return sum(ratings[a].rating > ratings[b].rating for a in range(8) for b in range(a + 1, 8))


def test_a_game_is_read_on_play_only_when_every_seat_has_its_luck():
    units = [[[(1, 0, 10.0, 4.0, False), (2, 1, 10.0, -2.5, False)]],
             [[(1, 1, 7.0, 1.0, False), (2, 0, 3.0, None, False)]]]
    read = official_read(units, game="deep_dive")
    assert (read.adjusted_games, read.raw_games, read.transform, read.seat_effects) == (1, 1, "identity", {})
    assert read.groups == [[[(1, 6.0), (2, 12.5)]], [[(1, 7.0), (2, 3.0)]]]  # the second game raw, both seats


def test_play_is_read_as_it_is_unless_a_transform_is_asked_for():
    game = [[[(1, 0, 40.0, 9.0, False), (2, 1, 2.0, 5.0, False)]]]
    read = official_read(game, game="deep_sea_adventure")
    assert (read.transform, read.groups) == ("identity", [[[(1, 31.0), (2, -3.0)]]])
    # Dive! Diver! Die!: the log of the score, less the luck at the log's slope at a typical score.
    read = official_read(game, game="dive_diver_die")
    slope = 1.0 / (1.0 + LOG_TYPICAL_SCORE["dive_diver_die"])
    assert read.transform == "log_score"
    assert read.groups == [[[(1, math.log1p(40.0) - 9.0 * slope), (2, math.log1p(2.0) - 5.0 * slope)]]]
    raw = official_read([[[(1, 0, 40.0, 9.0, False), (2, 1, 2.0, None, False)]]], game="dive_diver_die")
    assert raw.groups == [[[(1, math.log1p(40.0)), (2, math.log1p(2.0))]]]  # luck not measured: the score's log
    with pytest.raises(ValueError, match="typical score"):
        official_read(game, game="divee", transform="log_score")
    read = official_read(game, game="dive_diver_die", transform="signed_log")
    assert read.transform == "signed_log"
    assert read.groups == [[[(1, math.log1p(31.0)), (2, -math.log1p(3.0))]]]
    assert signed_log(0.0) == 0.0 and signed_log(-5.0) == -signed_log(5.0)
    with pytest.raises(ValueError, match="unknown transform"):
        official_read([], game="deep_dive", transform="cube")


def test_a_faulted_seat_counts_below_every_clean_seat_after_its_luck_is_out():
    read = official_read([[[(1, 0, 30.0, -5.0, True), (2, 1, 20.0, 1.0, False), (3, 2, 8.0, 2.0, False)]]],
                         game="deep_sea_adventure")
    assert read.groups == [[[(1, 5.0), (2, 19.0), (3, 6.0)]]]  # 35 capped a point under the lowest clean play


def test_taking_luck_out_orders_the_bots_better_than_the_raw_scores():
    units = _ladder(1, luck_sd=12.0)
    on_play = official_fit(units, game="deep_sea_adventure", bootstrap=0).ratings
    raw = official_fit([[[(b, s, x, None, f) for b, s, x, _, f in game] for game in unit] for unit in units],
                       game="deep_sea_adventure", bootstrap=0)
    assert raw.read.raw_games == len(units) and raw.read.adjusted_games == 0
    assert _order_errors(on_play) == 0 < _order_errors(raw.ratings)


def test_a_strong_seat_advantage_is_measured_and_taken_out():
    units = _ladder(2, seat_edge=(6.0, 2.0, 0.0, -8.0), noise_sd=6.0, tables=400)
    read = official_read(units, game="deep_sea_adventure")
    effects = read.seat_effects[4]
    assert abs(sum(effects)) < 1e-9
    assert [round(e) for e in effects] == [6, 2, 0, -8]  # the edges, centred (they sum to 0 already)
    plain = official_read(units, game="deep_sea_adventure", seat_effects=False)
    assert plain.seat_effects == {}
    fitted = fit_scores(read.groups, bootstrap=0)
    assert _order_errors(fitted) <= _order_errors(fit_scores(plain.groups, bootstrap=0))


def test_seat_effects_are_left_out_where_they_do_not_pay():
    assert official_read(_ladder(3, tables=400), game="deep_sea_adventure").seat_effects == {}  # no edge at all
    few = _ladder(4, seat_edge=(6.0, 2.0, 0.0, -8.0), tables=SEAT_EFFECT_MIN_GAMES - 1)
    assert official_read(few, game="deep_sea_adventure").seat_effects == {}  # too few games to say
    assert seat_effects_pay(100.0, 90.0, 300, 3) is True  # 300 ln(100/90) = 31.6 > 6
    assert seat_effects_pay(100.0, 99.0, 300, 3) is False  # 3.0 < 6
    assert seat_effects_pay(100.0, 100.0, 300, 0) is False


def test_the_official_fit_is_fit_scores_on_what_it_read_with_its_interval():
    units = _ladder(5, luck_sd=4.0, measured=0.7)
    result = official_fit(units, game="deep_sea_adventure", bootstrap=50, seed=3)
    assert result.read.raw_games + result.read.adjusted_games == len(units) and result.read.raw_games > 0
    plain = fit_scores(result.read.groups, bootstrap=50, seed=3)
    assert {b: r.rating for b, r in result.ratings.items()} == {b: r.rating for b, r in plain.items()}
    # The interval is the bootstrap's, each end INTERVAL_WIDENING times as far from the rating.
    for b, r in result.ratings.items():
        assert r.rating - r.low == pytest.approx(INTERVAL_WIDENING * (plain[b].rating - plain[b].low))
        assert r.high - r.rating == pytest.approx(INTERVAL_WIDENING * (plain[b].high - plain[b].rating))
        assert r.provisional == (r.high - r.low > PROVISIONAL_WIDTH)
    assert INTERVAL_WIDENING > 1.0
    assert official_fit([], game="deep_dive").ratings == {}
