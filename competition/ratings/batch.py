"""The official batch rating of a ladder: one order-independent fit over all its rated results.

Pure: no Django, no I/O. The model is Bradley-Terry over the pairwise results of every game, the
pairs weighted the way the live Elo weights them (``competition.ratings.elo``): a game with N seats is
N-1 pairwise games per seat at weight 1/(N-1), a tie is half a win each way. So a 2-seat game is
one comparison and a 4-seat game gives each seat one game's worth of comparisons, and a rating
here is on the live Elo's scale (400 points = 10:1 odds).

Log strengths are the posterior mode, found by damped Newton steps (each solved by conjugate
gradients, so a ladder of thousands of bots needs no dense matrix), with a weak prior: every entrant also drew ``PRIOR_GAMES`` virtual games
against a virtual opponent of strength 1. It keeps the rating of a bot that won (or lost)
everything finite, ties disconnected parts of a ladder to one scale, and matters little after a
few dozen games.

A rotation group (the same seed once per seat rotation) is one unit: its games are correlated
(they share the chance), so the interval comes from a bootstrap that resamples whole groups and
refits. The point estimate counts every game of a group (a group of k games weighs as k games:
its mean result times k), so regrouping the same games changes the interval, never the rating.
When the bootstrap would be too slow (``BOOTSTRAP_WORK_LIMIT``) or is switched off
(``bootstrap=0``), the interval comes from the fit's Fisher information instead, rescaled by the
observed dispersion of the groups' results (:func:`dispersion`): the pairwise model alone would
count a 4-seat game's three pairs as independent (too wide an interval, by ~1.35x) and a group's
shared chance not at all. Up to ``FULL_COVARIANCE_LIMIT`` entrants the information is inverted;
above, each entrant's own curvature is used (the others held at their estimates).

The fit depends on the results only: groups and games are put in a canonical order first, sums
are exact (integers), so the order the caller lists them in changes nothing.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from collections.abc import Sequence

Game = Sequence[tuple[int, int]]  # (entrant id, rank): rank 1 best, equal ranks tie
Group = Sequence[Game]  # the games of one rotation group (a lone match is a group of one)

BASE_RATING = 1500.0  # the geometric mean strength sits here
ELO_SCALE = 400.0 / math.log(10.0)  # rating points per unit of log strength
PRIOR_GAMES = 1.0  # virtual drawn games against strength 1 per entrant
Z95 = 1.959963984540054  # two-sided 95 % normal quantile
PROVISIONAL_WIDTH = 200.0  # an interval wider than this (in rating points) is provisional: about
#   45 games at even odds, fewer against well-spread opposition
BOOTSTRAP_WORK_LIMIT = 2_000_000  # (pairwise entries over all groups) x replicates above which
#   the interval comes from the Fisher information (a few seconds of bootstrap in pure Python)
TOLERANCE = 1e-5  # a Newton step this small leaves an error of its square (~2e-8 rating points)
TRUST_STEP = 0.5  # log strength: longer Newton steps get a line search
MAX_ITERATIONS = 100
MIN_GROUPS_FOR_DISPERSION = 30  # fewer groups: the Fisher interval is not rescaled
FULL_COVARIANCE_LIMIT = 150  # entrants up to which the Fisher interval inverts the information


@dataclass(frozen=True)
class BatchRating:
    """One entrant's fitted rating and its 95 % interval."""

    rating: float  # BASE_RATING + ELO_SCALE * ln(strength / geometric mean strength)
    low: float
    high: float
    games: int
    provisional: bool  # high - low > PROVISIONAL_WIDTH


@dataclass(frozen=True)
class _Pairs:
    """Aggregated pairwise results: entrant indexes i < j, comparisons and i's wins, both in units."""

    i: list[int]
    j: list[int]
    comparisons: list[int]
    wins_i: list[int]
    wins: list[int]  # per entrant, over all its pairs


def _canonical_game(game: Game) -> tuple[tuple[int, int], ...]:
    seats = tuple(sorted((int(entrant), int(rank)) for entrant, rank in game))
    entrants = [entrant for entrant, _ in seats]
    if len(set(entrants)) != len(entrants):
        raise ValueError(f"an entrant holds two seats in one game: {seats}")
    if any(rank < 1 for _, rank in seats):
        raise ValueError(f"ranks start at 1: {seats}")
    return seats


def _unit(groups: Sequence[Sequence[tuple[tuple[int, int], ...]]]) -> int:
    """An integer unit in which every weighted pairwise result is whole: 2 * lcm(N-1)."""
    lcm = 1
    for group in groups:
        for game in group:
            if len(game) >= 2:
                lcm = lcm * (len(game) - 1) // math.gcd(lcm, len(game) - 1)
    return 2 * lcm


def _group_pairs(group, index: dict[int, int], unit: int) -> dict[tuple[int, int], list[int]]:
    """A group's pairwise results: (i, j) with i < j -> [comparisons, i's wins], in units."""
    pairs: dict[tuple[int, int], list[int]] = {}
    for game in group:
        n = len(game)
        if n < 2:
            continue
        per_pair = unit // (n - 1)
        for a in range(n):
            entrant_a, rank_a = game[a]
            for b in range(a + 1, n):
                entrant_b, rank_b = game[b]
                i, j = index[entrant_a], index[entrant_b]
                rank_i, rank_j = (rank_a, rank_b) if i < j else (rank_b, rank_a)
                key = (i, j) if i < j else (j, i)
                cell = pairs.setdefault(key, [0, 0])
                cell[0] += per_pair
                if rank_i < rank_j:
                    cell[1] += per_pair
                elif rank_i == rank_j:
                    cell[1] += per_pair // 2
    return pairs


def _aggregate(group_pairs, multiplicity: Sequence[int], count: int) -> _Pairs:
    totals: dict[tuple[int, int], list[int]] = {}
    for pairs, times in zip(group_pairs, multiplicity):
        if not times:
            continue
        for key, (comparisons, wins_i) in pairs.items():
            cell = totals.setdefault(key, [0, 0])
            cell[0] += comparisons * times
            cell[1] += wins_i * times
    keys = sorted(totals)
    wins = [0] * count
    for key in keys:
        comparisons, wins_i = totals[key]
        wins[key[0]] += wins_i
        wins[key[1]] += comparisons - wins_i
    return _Pairs(i=[k[0] for k in keys], j=[k[1] for k in keys],
                  comparisons=[totals[k][0] for k in keys], wins_i=[totals[k][1] for k in keys], wins=wins)


def _objective(pairs: _Pairs, theta: Sequence[float], wins: Sequence[float], comparisons: Sequence[float]) -> float:
    """The log posterior (up to a constant) at log strengths ``theta``."""
    prior = PRIOR_GAMES
    total = math.fsum(w * t for w, t in zip(wins, theta))
    total -= math.fsum(prior * _log1pexp(t) for t in theta)
    total -= math.fsum(n * (theta[i] + _log1pexp(theta[j] - theta[i]))
                       for i, j, n in zip(pairs.i, pairs.j, comparisons))
    return total


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _curvature(pairs: _Pairs, theta: Sequence[float], wins: Sequence[float], comparisons: Sequence[float]):
    """Gradient, the information's diagonal and its off-diagonal weights at ``theta``."""
    prior = PRIOR_GAMES
    gradient = list(wins)
    diagonal = []
    for k, t in enumerate(theta):
        p = 1.0 / (1.0 + math.exp(-t))
        gradient[k] -= prior * p
        diagonal.append(prior * p * (1.0 - p))
    links = []
    for i, j, n in zip(pairs.i, pairs.j, comparisons):
        p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
        gradient[i] -= n * p
        gradient[j] -= n * (1.0 - p)
        c = n * p * (1.0 - p)
        diagonal[i] += c
        diagonal[j] += c
        links.append(c)
    return gradient, diagonal, links


def _solve(pairs, diagonal: Sequence[float], links: Sequence[float], rhs: Sequence[float],
           tolerance: float) -> list[float]:
    """x with H x = rhs by conjugate gradients (Jacobi preconditioner); H is the information: a
    graph Laplacian of the pairs (``pairs.i``, ``pairs.j`` weighted by ``links``) plus the prior's
    positive diagonal, so positive definite."""
    count = len(rhs)
    pi, pj = pairs.i, pairs.j

    def times(v):
        out = [d * x for d, x in zip(diagonal, v)]
        for i, j, c in zip(pi, pj, links):
            out[i] -= c * v[j]
            out[j] -= c * v[i]
        return out

    x = [0.0] * count
    r = list(rhs)
    z = [a / d for a, d in zip(r, diagonal)]
    p = list(z)
    rz = math.fsum(a * b for a, b in zip(r, z))
    limit = tolerance * tolerance * max(math.fsum(a * a for a in rhs), 1e-300)
    for _ in range(10 * count + 100):
        if math.fsum(a * a for a in r) <= limit:
            break
        q = times(p)
        alpha = rz / math.fsum(a * b for a, b in zip(p, q))
        x = [a + alpha * b for a, b in zip(x, p)]
        r = [a - alpha * b for a, b in zip(r, q)]
        z = [a / d for a, d in zip(r, diagonal)]
        rz_new = math.fsum(a * b for a, b in zip(r, z))
        p = [a + rz_new / rz * b for a, b in zip(z, p)]
        rz = rz_new
    return x


def _fit_theta(pairs: _Pairs, count: int, unit: int, start: Sequence[float] | None = None) -> list[float]:
    """Maximum a posteriori log strengths by Newton steps (the posterior is concave).

    A long step (beyond ``TRUST_STEP``), or one longer than the step before it, is damped by
    halving until the posterior rises; short steps near the optimum are taken as they are, which
    saves evaluating the posterior. Newton converges quadratically there, so once a step is
    below ``TOLERANCE`` the next one would be of its square: the fit stops.
    """
    wins = [w / unit + PRIOR_GAMES / 2 for w in pairs.wins]
    comparisons = [c / unit for c in pairs.comparisons]
    if start is None:
        # Each bot's log odds of winning a comparison: the fit against an average field, which
        # saves the first, damped Newton steps.
        played = [PRIOR_GAMES] * count
        for i, j, n in zip(pairs.i, pairs.j, comparisons):
            played[i] += n
            played[j] += n
        start = [math.log(w / (p - w)) for w, p in zip(wins, played)]
    theta = list(start)
    value = None
    previous = math.inf
    for _ in range(MAX_ITERATIONS):
        gradient, diagonal, links = _curvature(pairs, theta, wins, comparisons)
        step = _solve(pairs, diagonal, links, gradient, tolerance=1e-3)
        largest = max((abs(s) for s in step), default=0.0)
        if largest > TRUST_STEP or largest > previous:
            if value is None:
                value = _objective(pairs, theta, wins, comparisons)
            size = 1.0
            while True:
                trial = [t + size * s for t, s in zip(theta, step)]
                trial_value = _objective(pairs, trial, wins, comparisons)
                if trial_value >= value or size < 1e-6:
                    break
                size /= 2
            theta, value, largest = trial, trial_value, largest * size
        else:
            theta, value = [t + s for t, s in zip(theta, step)], None
        previous = largest
        if largest < TOLERANCE:
            break
    return theta


def _ratings(logs: Sequence[float]) -> list[float]:
    mean = math.fsum(logs) / len(logs)
    return [BASE_RATING + ELO_SCALE * (x - mean) for x in logs]


def dispersion(group_pairs, theta: Sequence[float], unit: int) -> float:
    """How much the results actually vary against what the pairwise model's information assumes.

    The model counts a seat's N-1 pairs in one game as one game's worth of independent
    evidence; they are not (beating three opponents at once is one event), and games of a
    rotation group share their chance. The ratio of the observed spread of each group's score
    (its gradient contribution per entrant, squared) to the model's information for it is the
    quasi-likelihood dispersion: about 0.55 for 4-seat games, 1 for independent 2-seat games.
    With fewer than ``MIN_GROUPS_FOR_DISPERSION`` groups it is not estimated (1).
    """
    if len(group_pairs) < MIN_GROUPS_FOR_DISPERSION:
        return 1.0
    observed = expected = 0.0
    for pairs in group_pairs:
        score: dict[int, float] = {}
        for (i, j), (comparisons, wins_i) in pairs.items():
            n = comparisons / unit
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            residual = wins_i / unit - n * p
            score[i] = score.get(i, 0.0) + residual
            score[j] = score.get(j, 0.0) - residual
            expected += 2 * n * p * (1.0 - p)
        observed += math.fsum(x * x for x in score.values())
    return observed / expected if expected else 1.0


def _fisher_sd(pairs: _Pairs, theta: Sequence[float], unit: int, scale: float) -> list[float]:
    """Each entrant's standard error (rating points) of its rating relative to the mean, the
    inverse information's variances times ``scale`` (the dispersion).

    Up to ``FULL_COVARIANCE_LIMIT`` entrants: from the inverse information (centred, since a
    rating is measured against the geometric mean). Above it: 1 / the information's diagonal,
    each entrant's curvature with the others held at their estimates.
    """
    wins = [w / unit + PRIOR_GAMES / 2 for w in pairs.wins]
    comparisons = [c / unit for c in pairs.comparisons]
    _, diagonal, links = _curvature(pairs, theta, wins, comparisons)
    return [ELO_SCALE * x for x in _centred_sd(pairs, diagonal, links, scale)]


def _centred_sd(pairs, diagonal: Sequence[float], links: Sequence[float], scale: float) -> list[float]:
    """Standard errors (in the fit's own units) of each entrant's estimate relative to the mean,
    from the information H (``diagonal`` and the pairs' ``links``) times ``scale``: the inverse's
    centred variances up to ``FULL_COVARIANCE_LIMIT`` entrants, 1 / H's diagonal above."""
    count = len(diagonal)
    root = math.sqrt(scale)
    if count > FULL_COVARIANCE_LIMIT:
        return [root / math.sqrt(x) for x in diagonal]
    matrix = [[0.0] * count for _ in range(count)]
    for k, d in enumerate(diagonal):
        matrix[k][k] = d
    for i, j, c in zip(pairs.i, pairs.j, links):
        matrix[i][j] -= c
        matrix[j][i] -= c
    inverse = _inverse(matrix)
    row_means = [math.fsum(row) / count for row in inverse]
    grand_mean = math.fsum(row_means) / count
    return [root * math.sqrt(max(inverse[k][k] - 2 * row_means[k] + grand_mean, 0.0))
            for k in range(count)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse of a symmetric positive definite matrix (no pivoting needed)."""
    count = len(matrix)
    work = [row[:] + [1.0 if k == r else 0.0 for k in range(count)] for r, row in enumerate(matrix)]
    for column in range(count):
        pivot_row = work[column]
        pivot = pivot_row[column]
        pivot_row[:] = [x / pivot for x in pivot_row]
        for r in range(count):
            if r != column:
                factor = work[r][column]
                if factor:
                    row = work[r]
                    row[:] = [x - factor * y for x, y in zip(row, pivot_row)]
    return [row[count:] for row in work]


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    position = q * (len(sorted_values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def _entrants(canonical) -> tuple[list[int], dict[int, int], list[int]]:
    """The entrants of canonical groups in order, each one's position, and its number of games."""
    entrants = sorted({entrant for group in canonical for game in group for entrant, _ in game})
    index = {entrant: position for position, entrant in enumerate(entrants)}
    games = [0] * len(entrants)
    for group in canonical:
        for game in group:
            for entrant, _ in game:
                games[index[entrant]] += 1
    return entrants, index, games


def fit(groups: Sequence[Group], *, bootstrap: int = 200, seed: int = 0) -> dict[int, BatchRating]:
    """Every entrant's batch rating and 95 % interval from all the ladder's groups of games.

    ``bootstrap`` replicates resample whole groups (percentile interval); 0, or more work than
    ``BOOTSTRAP_WORK_LIMIT``, uses the Fisher information (rating +- 1.96 standard errors).
    Deterministic for a given ``seed``; the order of groups, of games and of seats changes nothing.
    """
    if bootstrap < 0:
        raise ValueError("bootstrap must be 0 or more")
    canonical = sorted(tuple(sorted(_canonical_game(game) for game in group)) for group in groups)
    entrants, index, games = _entrants(canonical)
    if not entrants:
        return {}
    count = len(entrants)
    unit = _unit(canonical)
    group_pairs = [_group_pairs(group, index, unit) for group in canonical]
    everything = _aggregate(group_pairs, [1] * len(canonical), count)
    theta = _fit_theta(everything, count, unit)
    rating = _ratings(theta)

    work = sum(len(pairs) for pairs in group_pairs) * bootstrap
    if bootstrap and work <= BOOTSTRAP_WORK_LIMIT:
        rng = random.Random(seed)
        samples: list[list[float]] = [[] for _ in range(count)]
        for _ in range(bootstrap):
            multiplicity = [0] * len(canonical)
            for _ in range(len(canonical)):
                multiplicity[rng.randrange(len(canonical))] += 1
            resampled = _fit_theta(_aggregate(group_pairs, multiplicity, count), count, unit, start=theta)
            for position, value in enumerate(_ratings(resampled)):
                samples[position].append(value)
        bounds = []
        for position, values in enumerate(samples):
            values.sort()
            low = min(_percentile(values, 0.025), rating[position])
            high = max(_percentile(values, 0.975), rating[position])
            bounds.append((low, high))
    else:
        sd = _fisher_sd(everything, theta, unit, dispersion(group_pairs, theta, unit))
        bounds = [(r - Z95 * s, r + Z95 * s) for r, s in zip(rating, sd)]

    return {
        entrant: BatchRating(rating=rating[k], low=bounds[k][0], high=bounds[k][1], games=games[k],
                             provisional=bounds[k][1] - bounds[k][0] > PROVISIONAL_WIDTH)
        for k, entrant in enumerate(entrants)
    }


def probability_stronger(a: BatchRating, b: BatchRating) -> float:
    """P(A is stronger than B) from the stored values alone: each rating read as normal, its
    standard deviation from its interval's width (high - low = 2 * 1.96 sd)."""
    sd_a = (a.high - a.low) / (2 * Z95)
    sd_b = (b.high - b.low) / (2 * Z95)
    spread = math.hypot(sd_a, sd_b)
    difference = a.rating - b.rating
    if spread == 0.0:
        return 0.5 if difference == 0 else (1.0 if difference > 0 else 0.0)
    return 0.5 * math.erfc(-difference / (spread * math.sqrt(2.0)))
