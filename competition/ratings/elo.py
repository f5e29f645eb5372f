"""Multiplayer Elo as a pure function, on top of the ``elo`` package.

A match with N seats is rated as N-1 pairwise games per seat: a win, draw or loss against
every other seat from the ranks, each seat's K scaled by 1/(N-1). A faulted seat loses to
every seat that did not fault (two faulted seats compare by rank as usual). A rotation group
(one table playing one seed in every seat order) is rated once, on each pair's mean score over
its games (``mean_pairwise_scores``, then ``elo_rate_scores``).
"""

from __future__ import annotations

from collections.abc import Sequence

import elo

BETA = 200  # the elo package's scale: expected score = 1 / (1 + 10 ** (diff / (2 * BETA)))


def pairwise_scores(*, ranks: Sequence[int], faulted: Sequence[bool]) -> list[list[float | None]]:
    """``table[i][j]``: seat i's score against seat j (1 win, 0.5 draw, 0 loss; None on the diagonal)."""
    n = len(ranks)
    table: list[list[float | None]] = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if faulted[i] != faulted[j]:
                table[i][j] = elo.LOSS if faulted[i] else elo.WIN
            elif ranks[i] < ranks[j]:
                table[i][j] = elo.WIN
            elif ranks[i] > ranks[j]:
                table[i][j] = elo.LOSS
            else:
                table[i][j] = elo.DRAW
    return table


def elo_rate(*, ratings: Sequence[float], ranks: Sequence[int], faulted: Sequence[bool] | None = None,
             k_factor: float = 32.0) -> list[float]:
    """New ratings of every seat after one match (rank 1 is best). Pure: no I/O, no state."""
    n = len(ratings)
    if n != len(ranks):
        raise ValueError("ratings and ranks must have one entry per seat")
    faulted = list(faulted) if faulted is not None else [False] * n
    return elo_rate_scores(ratings=ratings, scores=pairwise_scores(ranks=ranks, faulted=faulted),
                           k_factor=k_factor)


def mean_pairwise_scores(tables: Sequence[Sequence[Sequence[float | None]]]) -> list[list[float | None]]:
    """The mean of several ``pairwise_scores`` tables of one table of entrants (a rotation group,
    each table indexed by entrant, not by seat): each entrant's mean result against each other."""
    if not tables:
        raise ValueError("at least one game")
    n = len(tables[0])
    return [[None if i == j else sum(_off_diagonal(t[i][j]) for t in tables) / len(tables) for j in range(n)]
            for i in range(n)]


def _off_diagonal(score: float | None) -> float:
    """A pairwise score off the diagonal, which is never None."""
    if score is None:
        raise ValueError("a pairwise score table holds None off its diagonal")
    return score


def elo_rate_scores(*, ratings: Sequence[float], scores: Sequence[Sequence[float | None]],
                    k_factor: float = 32.0) -> list[float]:
    """New ratings from ``scores[i][j]``, entrant i's (possibly mean) score against j in [0, 1]:
    one Elo update with K scaled by 1/(N-1). Pure."""
    n = len(ratings)
    if n < 2:
        return [float(r) for r in ratings]
    env = elo.Elo(k_factor=k_factor / (n - 1), beta=BETA)
    return [
        float(env.rate(float(ratings[i]), [(scores[i][j], float(ratings[j])) for j in range(n) if j != i]))
        for i in range(n)
    ]
