"""Tournament standings from game results: pure functions over plain data (no Django).

A game gives each seat the points of its place (ties share the mean of their places; a faulted
seat is placed below every seat that did not fault). A table plays a rotation group; the table's
result for an entrant is its mean points over the group's games. An entrant's points are the sum
of its table results. Tie-breaks, in order: Buchholz (the points of everyone who shared a table
with it, once per table shared), total score, head-to-head (games against the other tied entrants).
Solo tournaments (one seat) rank by total score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class GameResult:
    """One played game of a table: per seat, its entrant, rank (1 best), score and fault."""

    table: int
    entrants: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    faulted: tuple[bool, ...]


@dataclass
class Row:
    """One entrant's line of the standings."""

    entrant: int
    position: int = 0
    points: float = 0.0
    games: int = 0
    rank_sum: int = 0
    faults: int = 0
    buchholz: float = 0.0
    score: float = 0.0
    head_to_head: float = 0.0
    tables: int = 0
    table_points: dict[int, float] = field(default_factory=dict)

    @property
    def mean_rank(self) -> float | None:
        """The mean (fault-adjusted) finishing place over its games."""
        return self.rank_sum / self.games if self.games else None

    def as_dict(self) -> dict:
        """JSON-able (the stored final standings, the API)."""
        return {"entrant": self.entrant, "position": self.position, "points": round(self.points, 6),
                "games": self.games, "rank_sum": self.rank_sum, "mean_rank": None if self.mean_rank is None else round(self.mean_rank, 4),
                "faults": self.faults, "buchholz": round(self.buchholz, 6), "score": round(self.score, 6),
                "head_to_head": round(self.head_to_head, 6), "tables": self.tables}


def default_points(seats: int) -> list[float]:
    """k-1, k-2, ..., 0 for k seats."""
    return [float(seats - 1 - place) for place in range(seats)]


def points_for_size(points: Sequence[float], size: int) -> list[float]:
    """The points of each place at a table of ``size`` seats, from the points of a full table.

    A smaller table (when k does not divide the entrants) spreads its places over the full scale
    by linear interpolation: its winner gets the full table's first-place points, its last the last.
    """
    k = len(points)
    if size == k or k == 1:
        return [float(p) for p in points[:size]] if size <= k else [float(points[0])] * size
    if size == 1:
        return [float(points[0])]
    values = []
    for place in range(size):
        x = place * (k - 1) / (size - 1)
        low = int(x)
        high = min(low + 1, k - 1)
        values.append(float(points[low]) + (x - low) * (float(points[high]) - float(points[low])))
    return values


def places(ranks: Sequence[int], faulted: Sequence[bool]) -> list[tuple[int, int]]:
    """Per seat, the places (first, last; 0 best) it shares: seats are ordered by fault first (a
    faulted seat below every one that did not fault), then rank; equal seats share their places."""
    order = sorted(range(len(ranks)), key=lambda s: (bool(faulted[s]), ranks[s]))
    result: list[tuple[int, int]] = [(0, 0)] * len(ranks)
    start = 0
    while start < len(order):
        end = start
        key = (bool(faulted[order[start]]), ranks[order[start]])
        while end + 1 < len(order) and (bool(faulted[order[end + 1]]), ranks[order[end + 1]]) == key:
            end += 1
        for i in range(start, end + 1):
            result[order[i]] = (start, end)
        start = end + 1
    return result


def game_points(ranks: Sequence[int], faulted: Sequence[bool], points: Sequence[float]) -> list[float]:
    """Per seat, its points in one game: the mean of the points of the places it shares."""
    scale = points_for_size(points, len(ranks))
    return [sum(scale[first:last + 1]) / (last - first + 1) for first, last in places(ranks, faulted)]


def table_results(games: Sequence[GameResult], points: Sequence[float]) -> dict[int, dict[int, float]]:
    """Per table, per entrant: the mean of its points over the table's played games."""
    sums: dict[int, dict[int, list[float]]] = {}
    for game in games:
        per_seat = game_points(game.ranks, game.faulted, points)
        table = sums.setdefault(game.table, {})
        for seat, entrant in enumerate(game.entrants):
            table.setdefault(entrant, []).append(per_seat[seat])
    return {t: {e: sum(v) / len(v) for e, v in by_entrant.items()} for t, by_entrant in sums.items()}


def standings(entrants: Sequence[int], tables: Mapping[int, Sequence[int]], games: Sequence[GameResult],
              points: Sequence[float], *, solo: bool = False) -> list[Row]:
    """The standings, best first, with shared positions for entrants tied on every tie-break.

    ``tables`` maps a table id to its entrants (the opponents for Buchholz, whether or not its
    games were played yet); ``games`` are the played games (a failed game is not among them).
    """
    rows = {e: Row(entrant=e) for e in entrants}
    results = table_results(games, points)
    for table, by_entrant in results.items():
        for entrant, value in by_entrant.items():
            if entrant in rows:
                rows[entrant].points += value
                rows[entrant].table_points[table] = value
                rows[entrant].tables += 1
    for game in games:
        for seat, entrant in enumerate(game.entrants):
            row = rows.get(entrant)
            if row is None:
                continue
            row.games += 1
            row.rank_sum += places(game.ranks, game.faulted)[seat][0] + 1
            row.faults += bool(game.faulted[seat])
            row.score += float(game.scores[seat])
    for members in tables.values():
        for entrant in members:
            if entrant in rows:
                rows[entrant].buchholz += sum(rows[o].points for o in members if o != entrant and o in rows)

    def key(row: Row):
        if solo:
            return (-row.score, -row.points)
        return (-row.points, -row.buchholz, -row.score)

    ordered = sorted(rows.values(), key=lambda r: (key(r), r.entrant))
    ranked: list[Row] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and key(ordered[end + 1]) == key(ordered[start]):
            end += 1
        tied = ordered[start:end + 1]
        if len(tied) > 1:
            _head_to_head(tied, games, points)
            tied.sort(key=lambda r: (-r.head_to_head, r.entrant))
        ranked.extend(tied)
        start = end + 1
    for i, row in enumerate(ranked):
        previous = ranked[i - 1] if i else None
        if previous is not None and key(previous) == key(row) and previous.head_to_head == row.head_to_head:
            row.position = previous.position
        else:
            row.position = i + 1
    return ranked


def _head_to_head(tied: list[Row], games: Sequence[GameResult], points: Sequence[float]) -> None:
    """For entrants tied on every other tie-break: per game they shared, +1 for each of the others it
    placed above, -1 for each it placed below."""
    members = {r.entrant for r in tied}
    by_entrant = {r.entrant: r for r in tied}
    for row in tied:
        row.head_to_head = 0.0
    for game in games:
        seats = [s for s, e in enumerate(game.entrants) if e in members]
        if len(seats) < 2:
            continue
        seat_places = places(game.ranks, game.faulted)
        for a in seats:
            for b in seats:
                if a != b:
                    if seat_places[a][0] < seat_places[b][0]:
                        by_entrant[game.entrants[a]].head_to_head += 1
                    elif seat_places[a][0] > seat_places[b][0]:
                        by_entrant[game.entrants[a]].head_to_head -= 1


def advancers(members: Sequence[int], results: Mapping[int, float], scores: Mapping[int, float],
              seeds: Mapping[int, int], m: int) -> list[int]:
    """Elimination: the ``m`` entrants of a table that advance, best first: by table result (mean
    points over the group), then score over the group, then the better seed."""
    ordered = sorted(members, key=lambda e: (-results.get(e, 0.0), -scores.get(e, 0.0), seeds.get(e, 10**9), e))
    return ordered[:m]
