"""The statistics of an A/B test of two bots: paired results, a sequential probability ratio
test with H0/H1 in Elo, and an Elo estimate with its interval. Pure functions over plain data (no
Django, no I/O), shared by ``python -m workers.abtest`` and the platform's A/B tests.

The statistic (docs/abtests.md explains it with figures):

* Each game gives B's **head-to-head result against A**: 1 when B ranks better than A, 1/2 when
  they share a rank, 0 when B ranks worse (ranks include faults: a faulted seat ranks below every
  seat that did not fault). At k seats the other seats only set the scene; their places do not
  count. A win probability is what an Elo difference means, so H0/H1 in Elo apply unchanged.
* Games come in **pairs** on one seed with A and B in swapped seats, so the chance a seat slot
  meets cancels out as far as the bots play alike. A pair's result is the mean of its two games:
  one of five classes 0, 1/4, 1/2, 3/4, 1 (the pentanomial of chess's fishtest). Pairs are
  independent; the two games of one pair are not, so the variance is that of pairs.
* The SPRT is a generalised SPRT on the pair means with a normal approximation: with ``n`` pairs,
  mean ``m`` and variance ``v`` (of pair means), H0: expected score ``s0 = L(elo0)``,
  H1: ``s1 = L(elo1)``, L the logistic Elo curve,
  ``LLR = n * ((m - s0)**2 - (m - s1)**2) / (2 v) = n (s1 - s0)(2m - s0 - s1) / (2 v)``.
  Wald's bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``. The variance has a
  floor (``VARIANCE_FLOOR``) so that identical pairs (two deterministic copies of one bot mirror
  each other exactly) give a finite LLR, and no verdict comes before ``MIN_PAIRS`` pairs (the
  normal approximation needs a few); the A/A runs of ``bench/abtest.py`` measure the false-H1
  rate this gives.
* Luck-adjusted results plug in through ``head_to_head``'s ``values`` (score - luck per seat
  instead of ranks), see :func:`head_to_head`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

VERDICTS = ("H1", "H0", "undecided")
PAIR_CLASSES = (0.0, 0.25, 0.5, 0.75, 1.0)
# Variance of pair means below which the estimate is not trusted: a pair mean moves in steps of
# 1/4, so one pair in 60 off the mean already gives about this much.
VARIANCE_FLOOR = 1e-3
MIN_PAIRS = 10
Z95 = 1.959964


def expected_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (clipped to +-2000 at 0 and 1)."""
    score = min(max(score, 1e-6), 1 - 1e-6)
    return max(-2000.0, min(2000.0, -400.0 * math.log10(1.0 / score - 1.0)))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds: below the first H0 is accepted, above the second H1."""
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError(f"alpha {alpha} and beta {beta} must each lie strictly between 0 and 0.5")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def head_to_head(a_seat: int, b_seat: int, ranks: list, values: list | None = None) -> float:
    """B's result against A in one game: 1 if B did better, 1/2 if equal, 0 if worse.

    By ``ranks`` (1 is best) unless ``values`` (higher is better, e.g. score - luck) are given;
    a faulted seat should be ranked below the others by the caller either way.
    """
    if values is not None:
        a, b = values[a_seat], values[b_seat]
        return 1.0 if b > a else 0.5 if b == a else 0.0
    a, b = ranks[a_seat], ranks[b_seat]
    return 1.0 if b < a else 0.5 if b == a else 0.0


@dataclass
class Tally:
    """The pairs of a test so far: counts per pair class and mean scores of each side."""

    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_CLASSES))
    a_score_sum: float = 0.0
    b_score_sum: float = 0.0

    @property
    def pairs(self) -> int:
        """Pairs counted."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """Games counted (two per pair)."""
        return 2 * self.pairs

    def add_pair(self, first: float, second: float, a_scores: tuple = (0, 0), b_scores: tuple = (0, 0)) -> None:
        """Count one pair from B's head-to-head results in its two games and each side's scores."""
        for value in (first, second):
            if value not in (0.0, 0.5, 1.0):
                raise ValueError(f"a head-to-head result is 0, 0.5 or 1, not {value!r}")
        self.counts[PAIR_CLASSES.index((first + second) / 2)] += 1
        self.a_score_sum += sum(a_scores)
        self.b_score_sum += sum(b_scores)

    def mean_and_variance(self) -> tuple[float, float]:
        """Mean and (population) variance of the pair means; (0.5, 0) before any pair."""
        n = self.pairs
        if n == 0:
            return 0.5, 0.0
        mean = sum(c * x for c, x in zip(self.counts, PAIR_CLASSES)) / n
        variance = sum(c * (x - mean) ** 2 for c, x in zip(self.counts, PAIR_CLASSES)) / n
        return mean, variance

    def to_dict(self) -> dict:
        """The raw tally, JSON-able (the platform stores it)."""
        return {"counts": list(self.counts), "a_score_sum": self.a_score_sum, "b_score_sum": self.b_score_sum}

    @classmethod
    def from_dict(cls, data: dict) -> Tally:
        """The tally ``to_dict`` wrote."""
        return cls(counts=list(data["counts"]), a_score_sum=data["a_score_sum"], b_score_sum=data["b_score_sum"])


def llr(tally: Tally, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (B stronger by ``elo1``) against H0 (by ``elo0``)."""
    n = tally.pairs
    if n == 0:
        return 0.0
    mean, variance = tally.mean_and_variance()
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * max(variance, VARIANCE_FLOOR))


def elo_estimate(tally: Tally) -> tuple[float, tuple[float, float]]:
    """B's Elo over A with its 95 % interval, from the mean score and the variance of pair means."""
    mean, variance = tally.mean_and_variance()
    n = tally.pairs
    if n == 0:
        return 0.0, (-2000.0, 2000.0)
    half = Z95 * math.sqrt(max(variance, VARIANCE_FLOOR) / n)
    return elo_of_score(mean), (elo_of_score(mean - half), elo_of_score(mean + half))


def verdict(tally: Tally, elo0: float, elo1: float, alpha: float, beta: float) -> str:
    """``H1`` or ``H0`` once the LLR leaves its bounds (not before ``MIN_PAIRS``), else ``undecided``."""
    if tally.pairs < MIN_PAIRS:
        return "undecided"
    lower, upper = bounds(alpha, beta)
    value = llr(tally, elo0, elo1)
    return "H1" if value >= upper else "H0" if value <= lower else "undecided"


def report(tally: Tally, elo0: float, elo1: float, alpha: float, beta: float) -> dict:
    """The contract's fields (DESIGN.md, "A/B tests") for a tally."""
    elo, (lo, hi) = elo_estimate(tally)
    games = tally.games
    return {"games": games, "pairs": tally.pairs,
            "a_mean_score": tally.a_score_sum / games if games else None,
            "b_mean_score": tally.b_score_sum / games if games else None,
            "elo": round(elo, 2), "elo_ci": [round(lo, 2), round(hi, 2)],
            "llr": round(llr(tally, elo0, elo1), 4), "bounds": [round(b, 4) for b in bounds(alpha, beta)],
            "verdict": verdict(tally, elo0, elo1, alpha, beta), "pair_counts": list(tally.counts)}
