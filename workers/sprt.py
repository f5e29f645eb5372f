"""The statistics of an A/B test of two bots: paired results, a sequential test with H0/H1 in Elo
whose error rates hold, and an Elo estimate with its interval. Pure functions over plain data (no
Django, no I/O), shared by ``python -m workers.abtest`` and the platform's A/B tests.

The statistic (docs/abtests.md explains it with figures):

* Each game gives B's **head-to-head result against A**: 1 when B ranks better than A, 1/2 when
  they share a rank, 0 when B ranks worse (ranks include faults: a faulted seat ranks below every
  seat that did not fault). At k seats the other seats only set the scene; their places do not
  count. A win probability is what an Elo difference means, so H0/H1 in Elo apply unchanged.
  ``head_to_head``'s ``values`` compares score - luck instead; measured, it makes the paired test
  no cheaper (docs/abtests.md, "Luck-adjusted results"), so the command and the platform use ranks.
* Games come in **pairs** on one seed with A and B in swapped seats. A pair's result X is the mean
  of its two games: one of five classes 0, 1/4, 1/2, 3/4, 1 (the pentanomial of chess's
  fishtest). Pairs are independent; the two games of one pair are not, so only pairs are counted.
* H0: E[X] <= s0 = L(elo0); H1: E[X] >= s1 = L(elo1), L the logistic Elo curve. Both are
  composite (any distribution over the five classes with such a mean), which is why a GSPRT that
  plugs the estimated variance into a likelihood ratio (our first statistic, a normal
  approximation; fishtest's pentanomial MLE likewise) is only approximately right: at 0/40 Elo
  its A/A false-H1 rate was 7 % against an alpha of 5 %.
* The test used here is **exact**: two test martingales ("betting" e-processes),

      W1 = prod over pairs of (1 + lam_t (X_t - s0)),   W0 = prod over pairs of (1 + mu_t (s1 - X_t)),

  with ``lam_t``, ``mu_t`` >= 0 chosen *before* pair t from the pairs before it. Under H0,
  E[1 + lam (X - s0)] <= 1 whatever the distribution of X, so W1 is a nonnegative supermartingale
  starting at 1, and by Ville's inequality P(W1 ever reaches 1/alpha) <= alpha: H1 is said when
  ``log W1 >= log(1/alpha)``, and the false-H1 rate is at most alpha at every stopping time, for
  any pair distribution, without an approximation. Symmetrically H0 is said when
  ``log W0 >= log(1/beta)``, which under H1 happens with probability at most beta.
* The stakes are the growth-optimal (Kelly) bet of the SPRT's alternative, to second order:
  ``lam = mu = (s1 - s0) / (v + (s1 - s0)^2)`` with ``v`` the variance of the pair means seen so
  far (shrunk towards 1/8, the variance of two independent even games, by ``PRIOR_PAIRS``
  pseudo-pair), capped so that one pair never costs more than ``STAKE_CAP`` of the wealth.
  Expanding the logarithm, ``log W1 - log W0`` is then the normal GSPRT's LLR
  ``n (s1 - s0)(2m - s0 - s1) / (2 v)`` up to third-order terms: the same evidence, bet honestly.
* ``llr`` reports the leading side signed: ``log W1`` when it is the larger, else ``-log W0``; the
  verdict is exactly ``llr`` leaving ``bounds = (log beta, log(1/alpha))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

VERDICTS = ("H1", "H0", "undecided")
PAIR_CLASSES = (0.0, 0.25, 0.5, 0.75, 1.0)
# Pseudo-pairs at variance 1/8 that the stakes' variance starts from (an even coin per game). One:
# simulated, it decides a sweep in 22 games against 34 with two, and a close call costs the same.
PRIOR_PAIRS = 1
PRIOR_VARIANCE = 0.125
# Variance of pair means below which the estimate is not trusted (the Elo interval's floor; two
# deterministic copies of one bot mirror each other exactly and give 0).
VARIANCE_FLOOR = 1e-3
# The largest share of the wealth one pair may lose: keeps log W finite and a fluke pair survivable.
STAKE_CAP = 0.5
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
    """The evidence bounds: H0 once ``log W0 >= log(1/beta)`` (``llr`` at or below the first),
    H1 once ``log W1 >= log(1/alpha)`` (at or above the second); Ville's inequality, not Wald's."""
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError(f"alpha {alpha} and beta {beta} must each lie strictly between 0 and 0.5")
    return math.log(beta), -math.log(alpha)


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
    """The pairs of a test so far, in order: counts per pair class, each side's score sums, and
    the two test martingales (``log_w1`` for H1, ``log_w0`` for H0) of the hypotheses ``elo0`` /
    ``elo1``. The martingales depend on the order of the pairs, so a tally is only ever added to."""

    elo0: float = 0.0
    elo1: float = 10.0
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_CLASSES))
    a_score_sum: float = 0.0
    b_score_sum: float = 0.0
    log_w1: float = 0.0
    log_w0: float = 0.0

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 {self.elo1} must be above elo0 {self.elo0}")

    @property
    def pairs(self) -> int:
        """Pairs counted."""
        return sum(self.counts)

    @property
    def games(self) -> int:
        """Games counted (two per pair)."""
        return 2 * self.pairs

    def mean_and_variance(self) -> tuple[float, float]:
        """Mean and (population) variance of the pair means; (0.5, 0) before any pair."""
        n = self.pairs
        if n == 0:
            return 0.5, 0.0
        mean = sum(c * x for c, x in zip(self.counts, PAIR_CLASSES)) / n
        variance = sum(c * (x - mean) ** 2 for c, x in zip(self.counts, PAIR_CLASSES)) / n
        return mean, variance

    def stakes(self) -> tuple[float, float]:
        """``(lam, mu)``, the bets of W1 and W0 on the next pair, from the pairs so far only."""
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        gap = s1 - s0
        n = self.pairs
        variance = (n * self.mean_and_variance()[1] + PRIOR_PAIRS * PRIOR_VARIANCE) / (n + PRIOR_PAIRS)
        stake = gap / (max(variance, VARIANCE_FLOOR) + gap * gap)
        return min(stake, STAKE_CAP / s0), min(stake, STAKE_CAP / (1.0 - s1))

    def add_pair(self, first: float, second: float, a_scores: tuple = (0, 0), b_scores: tuple = (0, 0)) -> None:
        """Count one pair from B's head-to-head results in its two games and each side's scores."""
        for value in (first, second):
            if value not in (0.0, 0.5, 1.0):
                raise ValueError(f"a head-to-head result is 0, 0.5 or 1, not {value!r}")
        x = (first + second) / 2
        lam, mu = self.stakes()                     # chosen before this pair is seen
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        self.log_w1 += math.log1p(lam * (x - s0))
        self.log_w0 += math.log1p(mu * (s1 - x))
        self.counts[PAIR_CLASSES.index(x)] += 1
        self.a_score_sum += sum(a_scores)
        self.b_score_sum += sum(b_scores)

    def to_dict(self) -> dict:
        """The raw tally, JSON-able (the platform stores it)."""
        return {"elo0": self.elo0, "elo1": self.elo1, "counts": list(self.counts),
                "a_score_sum": self.a_score_sum, "b_score_sum": self.b_score_sum,
                "log_w1": self.log_w1, "log_w0": self.log_w0}

    @classmethod
    def from_dict(cls, data: dict, elo0: float = 0.0, elo1: float = 10.0) -> Tally:
        """The tally ``to_dict`` wrote. A tally stored before the martingales existed (no
        ``log_w1``) keeps its counts and starts its evidence afresh at 1, still a valid test
        (the stakes only ever look back); ``elo0``/``elo1`` are its hypotheses then."""
        return cls(elo0=data.get("elo0", elo0), elo1=data.get("elo1", elo1), counts=list(data["counts"]),
                   a_score_sum=data["a_score_sum"], b_score_sum=data["b_score_sum"],
                   log_w1=data.get("log_w1", 0.0), log_w0=data.get("log_w0", 0.0))


def llr(tally: Tally) -> float:
    """The evidence so far: ``log W1`` when it leads (towards H1), else ``-log W0`` (towards H0)."""
    return tally.log_w1 if tally.log_w1 >= tally.log_w0 else -tally.log_w0


def elo_estimate(tally: Tally) -> tuple[float, tuple[float, float]]:
    """B's Elo over A with its 95 % interval, from the mean score and the variance of pair means."""
    mean, variance = tally.mean_and_variance()
    n = tally.pairs
    if n == 0:
        return 0.0, (-2000.0, 2000.0)
    half = Z95 * math.sqrt(max(variance, VARIANCE_FLOOR) / n)
    return elo_of_score(mean), (elo_of_score(mean - half), elo_of_score(mean + half))


def verdict(tally: Tally, alpha: float, beta: float) -> str:
    """``H1`` or ``H0`` once ``llr`` leaves its bounds (not before ``MIN_PAIRS``), else ``undecided``."""
    if tally.pairs < MIN_PAIRS:
        return "undecided"
    lower, upper = bounds(alpha, beta)
    value = llr(tally)
    return "H1" if value >= upper else "H0" if value <= lower else "undecided"


def report(tally: Tally, alpha: float, beta: float) -> dict:
    """The contract's fields (DESIGN.md, "A/B tests") for a tally."""
    elo, (lo, hi) = elo_estimate(tally)
    games = tally.games
    return {"games": games, "pairs": tally.pairs,
            "a_mean_score": tally.a_score_sum / games if games else None,
            "b_mean_score": tally.b_score_sum / games if games else None,
            "elo": round(elo, 2), "elo_ci": [round(lo, 2), round(hi, 2)],
            "llr": round(llr(tally), 4), "bounds": [round(b, 4) for b in bounds(alpha, beta)],
            "log_w1": round(tally.log_w1, 4), "log_w0": round(tally.log_w0, 4),
            "verdict": verdict(tally, alpha, beta), "pair_counts": list(tally.counts)}
