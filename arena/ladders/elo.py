"""Multiplayer Elo as a pure function, on top of the ``elo`` package.

A match with N seats is rated as N-1 pairwise games per seat: a win, draw or loss against
every other seat from the ranks, each seat's K scaled by 1/(N-1). A faulted seat loses to
every seat that did not fault (two faulted seats compare by rank as usual).
"""

from __future__ import annotations

from typing import Sequence

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
    if n < 2:
        return [float(r) for r in ratings]
    env = elo.Elo(k_factor=k_factor / (n - 1), beta=BETA)
    table = pairwise_scores(ranks=ranks, faulted=faulted)
    return [
        float(env.rate(float(ratings[i]), [(table[i][j], float(ratings[j])) for j in range(n) if j != i]))
        for i in range(n)
    ]
