"""A bot's standing on a ladder as plain data, and how one rated match changes it. Pure: no Django.

The live path (``ratings_apply_match``) and the check that recomputes every ladder from its stored
results (``manage.py ratings_check``) both go through :func:`standings_after_match` (a lone match)
and :func:`standings_after_group` (a rotation group, rated once as a unit), so they cannot drift apart.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol

from competition.ratings.elo import (
    elo_rate,
    elo_rate_scores,
    mean_pairwise_scores,
    pairwise_scores,
)


@dataclass(frozen=True)
class Standing:
    """What a Rating row holds about one bot on one ladder."""

    elo: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    score_sum: float = 0.0
    score_sq_sum: float = 0.0

    @property
    def mean_score(self) -> float | None:
        """Mean (fault-adjusted) score per game; None before the first game."""
        return self.score_sum / self.games if self.games else None


@dataclass(frozen=True)
class SeatResult:
    """One seat of a recorded match: its score, its rank (1 is best) and whether its bot faulted."""

    score: float
    rank: int
    faulted: bool


STANDING_FIELDS = ("elo", "games", "wins", "draws", "losses", "faults", "score_sum", "score_sq_sum")


def seat_results(seats: Sequence) -> list[SeatResult]:
    """The results of recorded seats (anything with ``score``, ``rank`` and ``faulted``, such as
    MatchSeat rows), seat by seat."""
    return [SeatResult(score=float(s.score or 0.0), rank=int(s.rank), faulted=bool(s.faulted)) for s in seats]


def solo_score(score: float, faulted: bool) -> float:
    """The score a game counts for in the mean: a faulted game counts at most 0 (the fallback's
    play earns the bot nothing)."""
    return min(score, 0.0) if faulted else score


def _counted(standing: Standing, result: SeatResult) -> Standing:
    value = solo_score(float(result.score), result.faulted)
    return replace(standing, games=standing.games + 1, score_sum=standing.score_sum + value,
                   score_sq_sum=standing.score_sq_sum + value * value,
                   faults=standing.faults + int(result.faulted))


def _tallied(standing: Standing, results: Sequence[SeatResult], i: int) -> Standing:
    """``standing`` with game ``results`` counted for seat ``i``: a win (alone at the top), a draw
    (sharing the top) or a loss (someone finished ahead; a faulted seat is behind every other)."""
    effective = [(1 if r.faulted else 0, r.rank) for r in results]
    others = [effective[j] for j in range(len(results)) if j != i]
    if any(o < effective[i] for o in others):
        standing = replace(standing, losses=standing.losses + 1)
    elif any(o == effective[i] for o in others):
        standing = replace(standing, draws=standing.draws + 1)
    else:
        standing = replace(standing, wins=standing.wins + 1)
    return _counted(standing, results[i])


def standings_after_match(standings: Sequence[Standing], results: Sequence[SeatResult], *, solo: bool,
                          k_factor: float) -> list[Standing]:
    """The seats' standings after one rated match, seat by seat.

    Solo ladders count the game (mean score). Elo ladders also rate it (``elo_rate``: a faulted
    seat loses to every seat that did not fault) and count a win (alone at the top), a draw (sharing
    the top) or a loss (someone finished ahead).
    """
    if len(standings) != len(results):
        raise ValueError("one standing per seat")
    if solo:
        return [_counted(s, r) for s, r in zip(standings, results)]
    new_elo = elo_rate(ratings=[s.elo for s in standings], ranks=[r.rank for r in results],
                       faulted=[r.faulted for r in results], k_factor=k_factor)
    return [replace(_tallied(standing, results, i), elo=new_elo[i]) for i, standing in enumerate(standings)]


def standings_after_group(standings: Sequence[Standing], games: Sequence[Sequence[SeatResult]], *, solo: bool,
                          k_factor: float) -> list[Standing]:
    """The entrants' standings after one rated rotation group, entrant by entrant.

    ``games[g][i]`` is entrant i's result in game g (games in any order: they are rated as one
    unit). Every game is counted (games, W/D/L, faults, score sums); Elo moves once, on each
    pair's mean pairwise score over the games, so luck and seat advantage cancel before the
    update. A group of one game gives exactly what :func:`standings_after_match` gives.
    """
    if not games:
        raise ValueError("a rated group has at least one game")
    if any(len(game) != len(standings) for game in games):
        raise ValueError("one result per entrant in every game")
    after = list(standings)
    for game in games:
        after = [_counted(s, r) if solo else _tallied(s, game, i) for i, (s, r) in enumerate(zip(after, game))]
    if solo:
        return after
    mean = mean_pairwise_scores([pairwise_scores(ranks=[r.rank for r in game], faulted=[r.faulted for r in game])
                                 for game in games])
    new_elo = elo_rate_scores(ratings=[s.elo for s in standings], scores=mean, k_factor=k_factor)
    return [replace(s, elo=e) for s, e in zip(after, new_elo)]


def shown_rating(standing: Standing, *, solo: bool) -> float | None:
    """The figure a rating change records: the Elo, or the mean score on a solo ladder."""
    return standing.mean_score if solo else standing.elo


class MatchKey(Protocol):
    """What names a rated match in :func:`application_order`: hashable and ordered (match ids)."""

    def __hash__(self) -> int: ...

    def __lt__(self, other: Any, /) -> bool: ...


def application_order(units: Mapping[MatchKey, Mapping[Hashable, int]]) -> list[MatchKey]:
    """An order to apply rated matches in that every bot sees them in its own recorded order.

    ``units`` maps each match to ``{bot: sequence}`` (the bot's n-th applied change). Matches
    sharing no bot commute, so any order that respects every bot's sequence gives the same
    ratings; ties go to the smallest match key. Raises ValueError when the sequences contradict
    each other (a bot with two changes at one number, or a cycle).
    """
    chains: dict[Hashable, list[tuple[int, MatchKey]]] = {}
    for unit, bots in units.items():
        for bot, sequence in bots.items():
            chains.setdefault(bot, []).append((sequence, unit))
    position: dict[Hashable, int] = {}
    waiting: dict[MatchKey, int] = {unit: 0 for unit in units}
    for bot, chain in chains.items():
        chain.sort()
        numbers = [n for n, _ in chain]
        if len(set(numbers)) != len(numbers):
            raise ValueError(f"bot {bot} has two rating changes numbered alike")
        for index, (_, unit) in enumerate(chain):
            if index:
                waiting[unit] += 1
        position[bot] = 0
    ready = [unit for unit, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        unit = heapq.heappop(ready)
        order.append(unit)
        for bot in units[unit]:
            chain = chains[bot]
            position[bot] += 1
            if position[bot] < len(chain):
                nxt = chain[position[bot]][1]
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    heapq.heappush(ready, nxt)
    if len(order) != len(units):
        raise ValueError("the rating changes' sequences form a cycle")
    return order
