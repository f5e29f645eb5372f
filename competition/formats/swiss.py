"""Swiss rounds of k-seat tables: cut by rank, with no repeat table-mate whenever possible.

Pure (``competition.formats``). Byes go to the lowest-ranked entrants that had no bye yet; when
every candidate has had one, to the lowest-ranked. The searches draw from a ``random.Random``
seeded from their own inputs, so the same call returns the same round.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Mapping, Sequence

from competition.formats.tables import Table, check_entrants, table_sizes

# Work (candidates looked at) the exact Swiss search may spend before falling back to swaps.
# It settles every small field outright (the brute-force tests); the cap bounds the time of a
# round of a large field whose tail admits no repeat-free tables (about 0.1 s of search).
SWISS_SEARCH_WORK = 60_000
# Unseated entrants the greedy Swiss cut considers for a seat (nearest ranks first).
GREEDY_WINDOW = 64


def swiss_round(ranked: Sequence[int], meetings: Mapping[frozenset[int], int], k: int, *,
                min_seats: int, byes_had: Collection[int] = ()) -> list[Table]:
    """One Swiss round: tables cut by rank, with no repeat table-mate whenever that is possible.

    ``ranked`` is best first; ``meetings`` counts how often each pair has shared a table. The
    byes are chosen first (see the module's policies); among the rest, an exact search finds
    the repeat-free round closest to the rank cut, or proves there is none. It is budgeted
    (``SWISS_SEARCH_WORK``): small fields always settle; a large one that does not gets a
    greedy cut repaired by swaps between nearby tables, fewest repeat meetings first, then the
    least displacement from the rank cut. Tables are listed best first, members in rank order.
    """
    check_entrants(ranked)
    n = len(ranked)
    sizes = table_sizes(n, k, min_seats=min_seats)
    byes = _swiss_byes(ranked, n - sum(sizes), set(byes_had))
    players = [e for e in ranked if e not in byes]
    times: dict[int, dict[int, int]] = {e: {} for e in players}
    for pair, count in meetings.items():
        if count > 0 and len(pair) == 2:
            a, b = pair
            if a in times and b in times:
                times[a][b] = times[b][a] = count
    tables, settled = _repeat_free_tables(players, sizes, times)
    if tables is None:
        tables = _fewest_repeats(players, sizes, times, search_more=not settled)
    return [tuple(table) for table in tables]


def _swiss_byes(ranked: Sequence[int], count: int, had: set[int]) -> set[int]:
    if count == 0:
        return set()
    from_bottom = list(reversed(ranked))
    fresh = [e for e in from_bottom if e not in had]
    return set((fresh + [e for e in from_bottom if e in had])[:count])


def _repeat_free_tables(players: list[int], sizes: list[int], times: dict[int, dict[int, int]]
                        ) -> tuple[list[list[int]] | None, bool]:
    """Depth-first: the best-ranked unseated entrant opens the next table, its mates picked
    nearest in rank first, so the first solution found is the closest to the rank cut.

    Returns (tables, True) on success, (None, True) when the whole tree was searched and no
    repeat-free round exists, (None, False) when the work budget ran out first."""
    size_counts: dict[int, int] = {}
    for s in sizes:
        size_counts[s] = size_counts.get(s, 0) + 1
    order = sorted(size_counts, reverse=True)
    count = len(players)
    position = {e: i for i, e in enumerate(players)}
    met = [[position[x] for x in times[e]] for e in players]
    seated = [False] * count
    # met_unseated[i]: how many still unseated entrants i has met. i can still be seated only
    # while the unseated it has not met fill at least the smallest remaining table.
    met_unseated = [len(m) for m in met]
    unseated = [count]
    tables: list[list[int]] = []
    work = [SWISS_SEARCH_WORK]

    def seat(i: int) -> None:
        seated[i] = True
        unseated[0] -= 1
        for j in met[i]:
            met_unseated[j] -= 1

    def unseat(i: int) -> None:
        seated[i] = False
        unseated[0] += 1
        for j in met[i]:
            met_unseated[j] += 1

    # Only an entrant that has met more than (unseated - smallest table) of the unseated can be
    # stranded, and none has met more than the most-met entrant: check only near the tail.
    most_met = max(met_unseated, default=0)

    def viable() -> bool:
        left = [s for s in order if size_counts[s]]
        if not left or unseated[0] > most_met + left[-1]:
            return True
        need = left[-1] - 1
        work[0] -= count
        return all(unseated[0] - 1 - met_unseated[i] >= need
                   for i in range(count) if not seated[i])

    def search(start: int) -> bool:
        while start < count and seated[start]:
            start += 1
        if start == count:
            return True
        if work[0] < 0:
            return False
        leader = players[start]
        seat(start)
        for size in order:
            if not size_counts[size]:
                continue
            size_counts[size] -= 1
            for mates in _compatible(leader, start + 1, size - 1, players, seated, times, work):
                for i in mates:
                    seat(i)
                tables.append([leader] + [players[i] for i in mates])
                if viable() and search(start + 1):
                    return True
                tables.pop()
                for i in mates:
                    unseat(i)
                if work[0] < 0:
                    break
            size_counts[size] += 1
            if work[0] < 0:
                break
        unseat(start)
        return False

    found = search(0)
    return (tables if found else None), (found or work[0] >= 0)


def _compatible(leader: int, start: int, need: int, players: list[int], seated: list[bool],
                times: dict[int, dict[int, int]], work: list[int]):
    """Index tuples of ``need`` unseated entrants after ``start``, unmet by the leader and by
    each other, lexicographic in rank (nearest ranks first)."""
    chosen: list[int] = []
    count = len(players)
    leaders = times[leader]

    def extend(at: int):
        if len(chosen) == need:
            yield tuple(chosen)
            return
        for j in range(at, count):
            if seated[j]:
                continue
            work[0] -= 1
            if work[0] < 0:
                return
            candidate = players[j]
            if candidate in leaders:
                continue
            mine = times[candidate]
            if any(players[c] in mine for c in chosen):
                continue
            chosen.append(j)
            yield from extend(j + 1)
            chosen.pop()

    return extend(start)


def _greedy_cut(players: list[int], sizes: list[int],
                times: dict[int, dict[int, int]]) -> list[list[int]]:
    """Tables in rank order, each seat taken by the nearest-ranked unseated entrant who has met
    nobody at the table (or, failing that among the next few, the one who has met it least)."""
    rest = list(players)
    tables = []
    for size in sizes:
        table = [rest.pop(0)]
        while len(table) < size:
            window = rest[:GREEDY_WINDOW]
            pick = next((i for i, c in enumerate(window)
                         if not any(x in times[c] for x in table)), None)
            if pick is None:
                costs = [sum(times[c].get(x, 0) for x in table) for c in window]
                pick = costs.index(min(costs))
            table.append(rest.pop(pick))
        tables.append(table)
    return tables


def _fewest_repeats(players: list[int], sizes: list[int], times: dict[int, dict[int, int]], *,
                    search_more: bool) -> list[list[int]]:
    """Greedy cut by rank improved by swaps between tables: fewest repeat meetings (counted
    with their multiplicity) first, then the least displacement from the rank cut. Swaps look
    at nearby tables first and widen only while repeats remain."""
    home: dict[int, int] = {}
    at = 0
    for t, size in enumerate(sizes):
        home.update((e, t) for e in players[at:at + size])
        at += size
    tables = _greedy_cut(players, sizes, times)
    where = {e: t for t, table in enumerate(tables) for e in table}
    rng = random.Random(f"swiss:{players}:{sizes}")

    def cost(e: int, table: list[int], leaving: int) -> int:
        mine = times[e]
        return sum(mine.get(x, 0) for x in table if x != leaving and x != e)

    def swap_gain(ta: int, ia: int, tb: int, ib: int) -> tuple[int, int]:
        A, B = tables[ta], tables[tb]
        a, b = A[ia], B[ib]
        repeats = (cost(b, A, a) + cost(a, B, b)) - (cost(a, A, a) + cost(b, B, b))
        moved = (abs(home[b] - ta) + abs(home[a] - tb)) - (abs(home[a] - ta) + abs(home[b] - tb))
        return repeats, moved

    def repeats_at(t: int) -> bool:
        table = tables[t]
        return any(x in times[e] for e, x in itertools.combinations(table, 2))

    # Tables holding a repeat, kept up to date by apply(): the search only visits those.
    troubled = {t for t in range(len(tables)) if repeats_at(t)}

    def apply(ta: int, ia: int, tb: int, ib: int) -> None:
        A, B = tables[ta], tables[tb]
        A[ia], B[ib] = B[ib], A[ia]
        where[A[ia]], where[B[ib]] = ta, tb
        for t in (ta, tb):
            if repeats_at(t):
                troubled.add(t)
            else:
                troubled.discard(t)

    def conflicted() -> list[tuple[int, int]]:
        return [(t, i) for t in sorted(troubled) for i, e in enumerate(tables[t])
                if cost(e, tables[t], e)]

    def descend(window: int) -> bool:
        """Best-improving swaps of conflicted entrants within ``window`` tables; any made?"""
        changed = False
        progress = True
        while progress:
            progress = False
            for ta, ia in conflicted():
                if not cost(tables[ta][ia], tables[ta], -1):
                    continue
                best = None
                for tb in range(max(0, ta - window), min(len(tables), ta + window + 1)):
                    if tb == ta:
                        continue
                    for ib in range(len(tables[tb])):
                        gain = swap_gain(ta, ia, tb, ib)
                        if gain < (0, 0) and gain[0] <= 0 and (best is None or gain < best[0]):
                            best = (gain, tb, ib)
                if best is not None and best[0][0] < 0:
                    apply(ta, ia, best[1], best[2])
                    progress = changed = True
        return changed

    window = 1
    while True:
        descend(window)
        if not conflicted() or window >= len(tables):
            break
        window *= 2
    if search_more:
        # Sideways swaps (no more repeats) of a conflicted entrant shake the descent out of a
        # local minimum; bounded, seeded, so the round stays deterministic and quick.
        for _ in range(200):
            stuck = conflicted()
            if not stuck:
                break
            ta, ia = stuck[rng.randrange(len(stuck))]
            tb = rng.randrange(len(tables))
            if tb == ta:
                continue
            ib = rng.randrange(len(tables[tb]))
            if swap_gain(ta, ia, tb, ib)[0] <= 0:
                apply(ta, ia, tb, ib)
                descend(len(tables))
    # Pull displaced entrants back towards their rank-cut tables where that adds no repeat.
    for a in [e for e in players if where[e] != home[e]]:
        ta = where[a]
        if ta == home[a]:
            continue
        ia = tables[ta].index(a)
        step = 1 if home[a] > ta else -1
        for tb in range(home[a], ta, -step):
            moves = [(swap_gain(ta, ia, tb, ib), ib) for ib in range(len(tables[tb]))]
            gain, ib = min(moves)
            if gain[0] <= 0 and gain < (0, 0):
                apply(ta, ia, tb, ib)
                break
    rank = {e: i for i, e in enumerate(players)}
    for table in tables:
        table.sort(key=rank.__getitem__)
    tables.sort(key=lambda table: rank[table[0]])
    return tables
