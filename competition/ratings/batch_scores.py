"""The batch rating on score margins (``fit_scores``): the score-margin model beside the rank
model of ``competition.ratings.batch`` (whose fit, intervals and canonical order it shares).

Pure: no Django, no I/O.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from collections.abc import Sequence

from competition.ratings.batch import (
    BASE_RATING,
    BOOTSTRAP_WORK_LIMIT,
    ELO_SCALE,
    MIN_GROUPS_FOR_DISPERSION,
    PRIOR_GAMES,
    PROVISIONAL_WIDTH,
    Z95,
    BatchRating,
    _centred_sd,
    _entrants,
    _percentile,
    _solve,
)

ScoredGame = Sequence[tuple[int, float]]  # (entrant id, final score): higher is better
ScoredGroup = Sequence[ScoredGame]

PROBIT_TO_LOGIT = 1.702  # logistic(1.702 x) is within 0.01 of the normal distribution Phi(x)


@dataclass(frozen=True)
class _Links:
    """The margin model's normal matrix off its diagonal: pairs i < j and their weights (sum over
    the games they shared of 1/N), the weights in integer units."""

    i: list[int]
    j: list[int]
    weight: list[int]


def _canonical_scored_game(game: ScoredGame) -> tuple[tuple[int, float], ...]:
    seats = tuple(sorted((int(entrant), float(score)) for entrant, score in game))
    entrants = [entrant for entrant, _ in seats]
    if len(set(entrants)) != len(entrants):
        raise ValueError(f"an entrant holds two seats in one game: {seats}")
    if not all(math.isfinite(score) for _, score in seats):
        raise ValueError(f"scores are finite numbers: {seats}")
    return seats


def _score_unit(groups) -> int:
    """An integer unit in which every pair weight 1/N is whole: lcm(N)."""
    lcm = 1
    for group in groups:
        for game in group:
            if len(game) >= 2:
                lcm = lcm * len(game) // math.gcd(lcm, len(game))
    return lcm


def _group_margins(group, index: dict[int, int], unit: int):
    """A group's contribution to the normal equations: pair weights (i, j) -> units, and each
    entrant's summed margins (its score minus its table's mean score, game by game)."""
    weights: dict[tuple[int, int], int] = {}
    margins: dict[int, list[float]] = {}
    for game in group:
        n = len(game)
        if n < 2:
            continue
        mean = math.fsum(score for _, score in game) / n
        for a in range(n):
            i = index[game[a][0]]
            margins.setdefault(i, []).append(game[a][1] - mean)
            for b in range(a + 1, n):
                j = index[game[b][0]]
                key = (i, j) if i < j else (j, i)
                weights[key] = weights.get(key, 0) + unit // n
    return weights, {i: math.fsum(values) for i, values in margins.items()}


def _margin_system(contributions, multiplicity: Sequence[int], count: int):
    """The normal equations summed over groups taken ``multiplicity`` times each."""
    totals: dict[tuple[int, int], int] = {}
    rhs_terms: list[list[float]] = [[] for _ in range(count)]
    for (weights, margins), times in zip(contributions, multiplicity):
        if not times:
            continue
        for key, w in weights.items():
            totals[key] = totals.get(key, 0) + w * times
        for i, value in margins.items():
            rhs_terms[i].append(value * times)
    keys = sorted(totals)
    links = _Links(i=[k[0] for k in keys], j=[k[1] for k in keys], weight=[totals[k] for k in keys])
    return links, [math.fsum(terms) for terms in rhs_terms]


def _margin_diagonal(links: _Links, count: int, unit: int) -> tuple[list[float], list[float]]:
    """The normal matrix's diagonal (the pairs' weights plus the prior) and its off-diagonal weights."""
    weights = [w / unit for w in links.weight]
    diagonal = [PRIOR_GAMES / 2] * count
    for i, j, w in zip(links.i, links.j, weights):
        diagonal[i] += w
        diagonal[j] += w
    return diagonal, weights


def _fit_margins(links: _Links, rhs: Sequence[float], count: int, unit: int) -> list[float]:
    """The penalised least-squares strengths: one linear solve (the normal matrix is a graph
    Laplacian plus the prior's diagonal; conjugate gradients to a tight tolerance)."""
    diagonal, weights = _margin_diagonal(links, count, unit)
    return _solve(links, diagonal, weights, rhs, tolerance=1e-10)


def _residuals(group, index: dict[int, int], theta: Sequence[float]):
    """Each game's residuals per entrant: margin minus the model's margin (strength minus the
    table's mean strength)."""
    out = []
    for game in group:
        n = len(game)
        if n < 2:
            continue
        mean = math.fsum(score for _, score in game) / n
        strength = math.fsum(theta[index[entrant]] for entrant, _ in game) / n
        out.append([(index[entrant], score - mean - theta[index[entrant]] + strength) for entrant, score in game])
    return out


def fit_scores(groups: Sequence[ScoredGroup], *, bootstrap: int = 200, seed: int = 0) -> dict[int, BatchRating]:
    """Every entrant's batch rating from score margins, on the Elo scale, with a 95 % interval.

    Model: in every game a seat's score minus the table's mean score is its entrant's strength
    minus the table's mean strength, plus noise of one variance for the ladder (least squares,
    the Gaussian likelihood; a Thurstone model of score differences). The prior is one virtual
    2-seat game per entrant with margin 0 against an average entrant (ridge ``PRIOR_GAMES`` / 2).
    The strengths are put on the Elo scale through that model's win probability: two entrants
    whose strengths differ by d win a game against each other with P = Phi(d / sqrt(2 v)), v the
    residual variance of a seat's score; read as Elo (logistic(x) ~ Phi(x / 1.702)), a rating is
    BASE_RATING + ELO_SCALE * 1.702 * (strength - mean strength) / sqrt(2 v). So the scale is set
    by the ladder's own score noise, and ratings of different games are comparable as odds.

    Groups, ``bootstrap`` and ``seed`` work as in :func:`fit`: the point estimate counts every
    game; the interval resamples whole groups (each replicate's scale from its own residuals), or with
    ``bootstrap=0`` (or above ``BOOTSTRAP_WORK_LIMIT``) comes from the normal matrix times the
    residual variance, rescaled by how much a group's residuals agree (:func:`fit`'s dispersion,
    for margins). Order-independent: canonical order, integer pair weights, exactly rounded sums.
    """
    if bootstrap < 0:
        raise ValueError("bootstrap must be 0 or more")
    canonical = sorted(tuple(sorted(_canonical_scored_game(game) for game in group)) for group in groups)
    entrants, index, games = _entrants(canonical)
    if not entrants:
        return {}
    count = len(entrants)
    unit = _score_unit(canonical)
    contributions = [_group_margins(group, index, unit) for group in canonical]
    links, rhs = _margin_system(contributions, [1] * len(canonical), count)
    theta = _fit_margins(links, rhs, count, unit)

    residuals = [_residuals(group, index, theta) for group in canonical]
    group_squares = [math.fsum(r * r for game in group for _, r in game) for group in residuals]
    group_freedom = [sum(len(game) - 1 for game in group) for group in residuals]
    squares = math.fsum(group_squares)
    freedom = sum(group_freedom) - (count - 1)
    variance = squares / max(freedom, 1)
    measured = variance > 0.0
    if not measured:  # every game fitted exactly (or no game had two seats): no noise measured
        margins = [m for _, group_margins in contributions for m in group_margins.values()]
        variance = math.fsum(m * m for m in margins) / max(len(margins), 1) or 1.0

    def scale_of(variance: float) -> float:
        return ELO_SCALE * PROBIT_TO_LOGIT / math.sqrt(2.0 * variance)

    scale = scale_of(variance)

    def ratings(values: Sequence[float], scale: float = scale) -> list[float]:
        mean = math.fsum(values) / count
        return [BASE_RATING + scale * (v - mean) for v in values]

    rating = ratings(theta)
    work = sum(len(weights) for weights, _ in contributions) * bootstrap
    if bootstrap and work <= BOOTSTRAP_WORK_LIMIT:
        rng = random.Random(seed)
        samples: list[list[float]] = [[] for _ in range(count)]
        for _ in range(bootstrap):
            multiplicity = [0] * len(canonical)
            for _ in range(len(canonical)):
                multiplicity[rng.randrange(len(canonical))] += 1
            resampled_links, resampled_rhs = _margin_system(contributions, multiplicity, count)
            # The scale is the ladder's own noise, measured on these games too: a replicate
            # measures it on its own draw (each group's residual squares at the full fit), so
            # the interval holds the scale's uncertainty as well as the strengths'.
            replicate_scale = scale
            if measured:
                drawn_squares = math.fsum(s * m for s, m in zip(group_squares, multiplicity))
                drawn_freedom = sum(f * m for f, m in zip(group_freedom, multiplicity)) - (count - 1)
                if drawn_squares > 0.0 and drawn_freedom > 0:
                    replicate_scale = scale_of(drawn_squares / drawn_freedom)
            resampled = _fit_margins(resampled_links, resampled_rhs, count, unit)
            for position, value in enumerate(ratings(resampled, replicate_scale)):
                samples[position].append(value)
        bounds = []
        for position, values in enumerate(samples):
            values.sort()
            bounds.append((min(_percentile(values, 0.025), rating[position]),
                           max(_percentile(values, 0.975), rating[position])))
    else:
        diagonal, weights = _margin_diagonal(links, count, unit)
        spread = variance * _margin_dispersion(residuals, variance)
        sd = [scale * x for x in _centred_sd(links, diagonal, weights, spread)]
        bounds = [(r - Z95 * s, r + Z95 * s) for r, s in zip(rating, sd)]

    return {
        entrant: BatchRating(rating=rating[k], low=bounds[k][0], high=bounds[k][1], games=games[k],
                             provisional=bounds[k][1] - bounds[k][0] > PROVISIONAL_WIDTH)
        for k, entrant in enumerate(entrants)
    }


def score_strengths(groups: Sequence[ScoredGroup]) -> dict[int, float]:
    """Every entrant's strength in score units, centred on the entrants' mean: the point estimate
    of :func:`fit_scores` (same model and prior) without its scale or interval."""
    canonical = sorted(tuple(sorted(_canonical_scored_game(game) for game in group)) for group in groups)
    entrants, index, _ = _entrants(canonical)
    if not entrants:
        return {}
    count = len(entrants)
    unit = _score_unit(canonical)
    links, rhs = _margin_system([_group_margins(group, index, unit) for group in canonical], [1] * len(canonical),
                                count)
    theta = _fit_margins(links, rhs, count, unit)
    mean = math.fsum(theta) / count
    return {entrant: theta[k] - mean for k, entrant in enumerate(entrants)}


def _margin_dispersion(residuals, variance: float) -> float:
    """How much an entrant's residuals within a group add up beyond independent games: the
    observed square of each entrant's summed residual per group over what independent games
    would give (v (N-1)/N per seat). 1 for lone games by construction, above 1 for groups whose
    games came out alike. With fewer than ``MIN_GROUPS_FOR_DISPERSION`` groups: 1."""
    if len(residuals) < MIN_GROUPS_FOR_DISPERSION:
        return 1.0
    observed = expected = 0.0
    for group in residuals:
        summed: dict[int, float] = {}
        for game in group:
            n = len(game)
            for i, r in game:
                summed[i] = summed.get(i, 0.0) + r
                expected += variance * (n - 1) / n
        observed += math.fsum(x * x for x in summed.values())
    return observed / expected if expected else 1.0
