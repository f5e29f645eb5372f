"""Pairing for tournaments of k-seat tables: round robin, Swiss and single elimination.

Pure functions over plain data (entrants are ints, a table is a tuple of entrants, a round is a
list of tables); no Django, no I/O, no clocks. Every choice is deterministic: the searches draw
from a ``random.Random`` seeded from their own inputs, so the same call returns the same rounds.

An entrant that sits at no table of a round has a *bye* for that round.

Policies (the tournament app and docs rely on them):

- Table sizes (``table_sizes``): seat as many entrants as possible (fewest byes); with that,
  use as few tables as possible (so tables are as full as possible), and spread the seated
  entrants evenly over them (sizes differ by at most one, larger tables first). No table is ever
  below ``min_seats``. Example: n=10, k=4 -> [4, 3, 3]; n=5, k=4, min_seats=3 -> [4] and a bye.
- Byes in a round robin rotate through the entrants in their given order, so over any number
  of rounds the bye counts differ by at most one.
- Byes in Swiss go to the lowest-ranked entrants that had no bye yet; when every candidate has
  had one, to the lowest-ranked.
- Byes in elimination go to the top seeds, who advance without playing.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Mapping, Sequence

Table = tuple[int, ...]
Round = list[Table]

# Work (candidates looked at) the exact Swiss search may spend before falling back to swaps.
# It settles every small field outright (the brute-force tests); the cap bounds the time of a
# round of a large field whose tail admits no repeat-free tables (about 0.1 s of search).
SWISS_SEARCH_WORK = 60_000
# Unseated entrants the greedy Swiss cut considers for a seat (nearest ranks first).
GREEDY_WINDOW = 64
# Annealing runs a round robin may spend looking for ever wider bands of pair counts.
MAX_ANNEALS = 4


# ---------------------------------------------------------------------------------------------
# Table sizes


def table_sizes(n: int, k: int, *, min_seats: int) -> list[int]:
    """Sizes of one round's tables for ``n`` entrants at tables of at most ``k`` seats."""
    _check_seats(k, min_seats)
    if n < min_seats:
        raise ValueError(f"{n} entrant(s) cannot fill one table: a table needs at least "
                         f"{min_seats}")
    # Seated count: the largest s <= n with ceil(s/k) * min_seats <= s (ceil(s/k) tables is the
    # fewest that hold s; if they are too many for min_seats, more tables only make it worse).
    seated = n
    while -(-seated // k) * min_seats > seated:
        seated -= 1
    tables = -(-seated // k)
    base, extra = divmod(seated, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def _check_seats(k: int, min_seats: int) -> None:
    if k < 1:
        raise ValueError(f"a table needs at least one seat (k={k})")
    if min_seats < 1:
        raise ValueError(f"the minimum table size must be at least 1 (min_seats={min_seats})")
    if k < min_seats:
        raise ValueError(f"tables of {k} seat(s) are below the game's minimum of {min_seats}")


def _check_entrants(entrants: Sequence[int]) -> None:
    if len(set(entrants)) != len(entrants):
        seen: set[int] = set()
        doubled = sorted({e for e in entrants if e in seen or seen.add(e)})
        raise ValueError(f"entrants appear more than once: {doubled}")


# ---------------------------------------------------------------------------------------------
# Round robin


def round_robin(entrants: Sequence[int], k: int, rounds: int, *,
                min_seats: int) -> list[list[Table]]:
    """All rounds of a round robin: every pair shares a table as evenly as possible.

    Perfect designs are built where known (one table; solo games; the circle method for two
    seats; the lines of the affine space AG(d, q) for n = q^d entrants at q seats, q a prime
    power, e.g. 9 at 3 in 4 rounds, 16 at 4 in 5, 64 at 4 in 21; Kirkman's 15 at 3 in 7) and
    repeated cyclically for more rounds. Other fields are searched (greedy, then seeded
    annealing), which reaches max-min <= 1 of the pair counts where it finds it; where that is
    impossible (e.g. 6 entrants at two 3-seat tables in 2-5 rounds) it returns the narrowest
    spread it found. A long schedule of a mid-sized field can take seconds: compute it off the
    request path. Tables of a round: larger first, then by the entrants' given order.
    """
    _check_entrants(entrants)
    if rounds < 1:
        raise ValueError(f"a round robin needs at least one round (rounds={rounds})")
    n = len(entrants)
    sizes = table_sizes(n, k, min_seats=min_seats)
    schedule = _known_design(n, k, sizes, rounds)
    if schedule is None:
        schedule = _searched_schedule(n, sizes, rounds)
    return [_relabel(round_, entrants) for round_ in schedule]


def _relabel(round_: list[list[int]], entrants: Sequence[int]) -> Round:
    tables = [tuple(entrants[i] for i in sorted(table)) for table in round_]
    order = {e: i for i, e in enumerate(entrants)}
    tables.sort(key=lambda table: (-len(table), order[table[0]]))
    return tables


def _known_design(n: int, k: int, sizes: list[int], rounds: int) -> list[list[list[int]]] | None:
    """A perfect resolvable design for (n, k), repeated to fill ``rounds``; None if unknown."""
    cycle: list[list[list[int]]] | None = None
    if len(sizes) == 1 and sum(sizes) == n:
        cycle = [[list(range(n))]]
    elif k == 1:
        cycle = [[[i] for i in range(n)]]
    elif k == 2:
        cycle = _circle_method(n, sizes, rounds)
    else:
        dimension = _log(n, k)
        if dimension is not None and _prime_power(k) is not None:
            cycle = _affine_geometry(k, dimension)
        elif n == 15 and k == 3 and sizes == [3] * 5:
            cycle = [[list(t) for t in round_] for round_ in _KIRKMAN_15]
    if cycle is None:
        return None
    # Any set of rounds of a design is a packing, so whole cycles plus a prefix keep every
    # pair's count within one of every other's.
    return [cycle[r % len(cycle)] for r in range(rounds)]


def _circle_method(n: int, sizes: list[int], wanted: int) -> list[list[list[int]]]:
    """Berger tables: n-1 rounds for even n, n rounds (one entrant out each) for odd n; only
    the first ``wanted`` of them are built."""
    odd = n % 2
    ring = n + odd  # a phantom entrant n sits out opposite the real one with the bye
    rounds = []
    for r in range(min(wanted, ring - 1)):
        order = [ring - 1] + [(r + i) % (ring - 1) for i in range(ring - 1)]
        round_ = []
        for i in range(ring // 2):
            a, b = order[i], order[ring - 1 - i]
            pair = [x for x in (a, b) if x < n]
            if len(pair) == 2 or 1 in sizes:
                round_.append(pair)
        rounds.append(round_)
    return rounds


def _log(n: int, base: int) -> int | None:
    if base < 2:
        return None
    d, power = 0, 1
    while power < n:
        power *= base
        d += 1
    return d if power == n and d >= 1 else None


def _prime_power(q: int) -> tuple[int, int] | None:
    if q < 2:
        return None
    p = next(p for p in range(2, q + 1) if q % p == 0)
    e, rest = 0, q
    while rest % p == 0:
        rest //= p
        e += 1
    return (p, e) if rest == 1 else None


def _field(q: int) -> tuple[list[list[int]], list[list[int]]]:
    """Addition and multiplication tables of GF(q), elements as base-p digit vectors."""
    p, e = _prime_power(q)  # type: ignore[misc]

    def digits(x: int) -> list[int]:
        return [(x // p ** i) % p for i in range(e)]

    def number(ds: list[int]) -> int:
        return sum(d * p ** i for i, d in enumerate(ds))

    add = [[number([(a + b) % p for a, b in zip(digits(x), digits(y))]) for y in range(q)]
           for x in range(q)]
    for modulus in itertools.product(range(p), repeat=e):  # monic x^e + sum modulus[i] x^i
        mul = [[0] * q for _ in range(q)]
        for x in range(q):
            for y in range(q):
                product = [0] * (2 * e)
                for i, a in enumerate(digits(x)):
                    for j, b in enumerate(digits(y)):
                        product[i + j] = (product[i + j] + a * b) % p
                for top in range(2 * e - 1, e - 1, -1):
                    c = product[top]
                    if c:
                        product[top] = 0
                        for i in range(e):
                            product[top - e + i] = (product[top - e + i] - c * modulus[i]) % p
                mul[x][y] = number(product[:e])
        # The quotient ring is a field iff it has no zero divisors.
        if all(mul[x][y] for x in range(1, q) for y in range(1, q)):
            return add, mul
    raise AssertionError(f"no irreducible polynomial for GF({q})")  # cannot happen


def _affine_geometry(q: int, d: int) -> list[list[list[int]]]:
    """Parallel classes of the lines of AG(d, q): (q^d-1)/(q-1) rounds, every pair once."""
    add, mul = _field(q)
    neg = [next(y for y in range(q) if add[x][y] == 0) for x in range(q)]
    points = list(itertools.product(range(q), repeat=d))
    index = {point: i for i, point in enumerate(points)}
    directions = [v for v in points if any(v) and v[next(i for i, c in enumerate(v) if c)] == 1]
    rounds = []
    for v in directions:
        pivot = next(i for i, c in enumerate(v) if c)
        lines: dict[tuple[int, ...], list[int]] = {}
        for point in points:
            t = neg[point[pivot]]
            key = tuple(add[c][mul[t][vc]] for c, vc in zip(point, v))
            lines.setdefault(key, []).append(index[point])
        rounds.append(sorted(lines.values()))
    return rounds


# Kirkman's fifteen schoolgirls (the solution printed in Wikipedia's article, A..O as 0..14):
# 7 rounds of five triples, every pair exactly once; the tests check it.
_KIRKMAN_15: tuple[tuple[tuple[int, ...], ...], ...] = (
    ((0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11), (12, 13, 14)),
    ((0, 3, 7), (1, 4, 10), (2, 8, 14), (5, 11, 13), (6, 9, 12)),
    ((0, 4, 12), (1, 7, 13), (2, 6, 10), (3, 8, 11), (5, 9, 14)),
    ((0, 5, 8), (1, 11, 14), (2, 7, 9), (3, 10, 12), (4, 6, 13)),
    ((0, 6, 11), (1, 3, 9), (2, 5, 12), (4, 7, 14), (8, 10, 13)),
    ((0, 9, 13), (1, 8, 12), (2, 4, 11), (3, 6, 14), (5, 7, 10)),
    ((0, 10, 14), (1, 5, 6), (2, 3, 13), (4, 8, 9), (7, 11, 12)),
)


def _searched_schedule(n: int, sizes: list[int], rounds: int) -> list[list[list[int]]]:
    """Greedy rounds, then annealing towards pair counts within ever wider bands.

    Balance is max-min of the pair counts. The search asks for every count within a band
    [lo, lo + width] around the mean, for width 1, 2, ...: a band is reached exactly when its
    energy (each count's distance outside the band, squared) is zero, an aim that a variance-like
    energy does not share (it may prefer a wider spread with fewer outliers)."""
    rng = random.Random(f"round_robin:{n}:{sizes}:{rounds}")
    seated = sum(sizes)
    byes_per_round = n - seated
    count = [[0] * n for _ in range(n)]
    schedule: list[list[list[int]]] = []
    for r in range(rounds):
        out = {(r * byes_per_round + i) % n for i in range(byes_per_round)}
        players = [e for e in range(n) if e not in out]
        rng.shuffle(players)
        schedule.append(_greedy_round(players, sizes, count))
        for table in schedule[-1]:
            for a, b in itertools.combinations(table, 2):
                count[a][b] += 1
                count[b][a] += 1
    pairs = n * (n - 1) // 2
    histogram = _histogram(schedule, count, n, rounds)
    reached = _spread(histogram)
    if reached <= 1 or all(len(round_) < 2 for round_ in schedule):
        return schedule
    mean = sum(c * h for c, h in enumerate(histogram)) / pairs
    best = schedule
    runs = 0
    for width in range(1, reached):
        for low in range(max(0, math.ceil(mean) - width), math.floor(mean) + 1):
            if runs == MAX_ANNEALS:
                return best
            runs += 1
            trial = [[list(table) for table in round_] for round_ in schedule]
            spread = _anneal(trial, [row[:] for row in count], n, rng, low, low + width)
            if spread < reached:
                best, reached = trial, spread
            if reached <= width:
                return best
    return best


def _greedy_round(players: list[int], sizes: list[int],
                  count: list[list[int]]) -> list[list[int]]:
    """Fill tables one seat at a time: the first of the next 64 candidates who has met nobody
    at the table, else the one who has met it least."""
    remaining = list(players)
    tables = []
    for size in sizes:
        table = [remaining.pop()]
        while len(table) < size:
            window = remaining[-64:]
            best = next((i for i in range(len(window) - 1, -1, -1)
                         if not any(count[window[i]][x] for x in table)), None)
            if best is None:
                best = min(range(len(window)),
                           key=lambda i: sum(count[window[i]][x] for x in table))
            table.append(remaining.pop(len(remaining) - len(window) + best))
        tables.append(table)
    return tables


def _histogram(schedule: list[list[list[int]]], count: list[list[int]], n: int,
               rounds: int) -> list[int]:
    """How many pairs met 0, 1, 2, ... times; read from the tables, not all n^2 pairs, since a
    large field's schedule is sparse."""
    met = {(a, b) if a < b else (b, a) for round_ in schedule for table in round_
           for a, b in itertools.combinations(table, 2)}
    histogram = [0] * (rounds + 2)
    for a, b in met:
        histogram[count[a][b]] += 1
    histogram[0] = n * (n - 1) // 2 - len(met)
    return histogram


def _spread(histogram: list[int]) -> int:
    used = [c for c, h in enumerate(histogram) if h]
    return used[-1] - used[0] if used else 0


def _anneal(schedule: list[list[list[int]]], count: list[list[int]], n: int,
            rng: random.Random, low: int, high: int) -> int:
    """Swap entrants between tables of one round until every pair count lies in [low, high]
    (or the steps run out); in place. Returns the max-min of the pair counts of the result."""
    rounds = len(schedule)
    pairs = n * (n - 1) // 2
    histogram = _histogram(schedule, count, n, rounds)
    movable = [r for r in range(rounds) if len(schedule[r]) > 1]
    tables_of = [[(t, i) for t, table in enumerate(schedule[r]) for i in range(len(table))]
                 for r in range(rounds)]
    # Enough swaps to settle the small fields the tests sweep; capped so a large field's
    # schedule stays within seconds (it usually starts balanced and stops at once).
    steps = min(300_000, max(50_000, 40 * pairs * rounds))
    penalty = [max(low - c, c - high, 0) ** 2 for c in range(rounds + 3)]
    up = [penalty[c + 1] - penalty[c] for c in range(rounds + 2)]
    down = [0] + [penalty[c - 1] - penalty[c] for c in range(1, rounds + 2)]
    energy = sum(penalty[c] * h for c, h in enumerate(histogram))
    # A first tenth of the steps at zero temperature: a large field's greedy start is nearly
    # balanced, and a hot start would only scatter new outliers over it.
    quench = steps // 10
    temperature = 2.0
    cooling = (0.05 / temperature) ** (1 / (steps - quench))
    best_energy = energy
    best = [[list(t) for t in round_] for round_ in schedule]
    random_ = rng.random
    choice = rng.choice

    def hot_seats() -> list[tuple[int, int, int]]:
        """Seats of entrants in a pair above the band: in a large field they are few, and
        uniform moves would rarely touch them."""
        seats = []
        for r in movable:
            for t, table in enumerate(schedule[r]):
                for i, j in itertools.combinations(range(len(table)), 2):
                    if count[table[i]][table[j]] > high:
                        seats += ((r, t, i), (r, t, j))
        return seats

    hot = hot_seats()
    # A refresh reads every table pair once; spacing refreshes by that many steps keeps them
    # a small share of the work.
    refresh = max(512, sum(len(t) * (len(t) - 1) // 2 for r in movable for t in schedule[r]) // 4)
    for step in range(steps):
        if energy == 0:
            break
        if step >= quench:
            temperature *= cooling
        if step % refresh == refresh - 1:
            hot = hot_seats()
        if hot and random_() < 0.5:
            r, ta, ia = choice(hot)
        else:
            r = choice(movable)
            ta, ia = choice(tables_of[r])
        round_ = schedule[r]
        tb, ib = choice(tables_of[r])
        if ta == tb:
            continue
        A, B = round_[ta], round_[tb]
        a, b = A[ia], B[ib]
        ca, cb = count[a], count[b]
        delta = 0
        for x in A:
            if x != a:
                delta += up[cb[x]] + down[ca[x]]
        for y in B:
            if y != b:
                delta += up[ca[y]] + down[cb[y]]
        if delta > 0 and (step < quench or random_() >= math.exp(-delta / temperature)):
            continue
        for x in A:
            if x != a:
                ca[x] -= 1
                count[x][a] -= 1
                cb[x] += 1
                count[x][b] += 1
        for y in B:
            if y != b:
                cb[y] -= 1
                count[y][b] -= 1
                ca[y] += 1
                count[y][a] += 1
        A[ia], B[ib] = b, a
        energy += delta
        # Copying a large schedule costs: keep a copy of a better state only now and then
        # (and at once when it is within the band); the final state competes at the end.
        if energy < best_energy and (energy == 0 or step % 1024 == 0):
            best_energy = energy
            best = [[list(t) for t in rr] for rr in schedule]
    if energy <= best_energy:
        best = schedule
    schedule[:] = [[list(t) for t in rr] for rr in best]
    counts = [[0] * n for _ in range(n)]
    for round_ in schedule:
        for table in round_:
            for x, y in itertools.combinations(table, 2):
                counts[x][y] += 1
                counts[y][x] += 1
    return _spread(_histogram(schedule, counts, n, rounds))


# ---------------------------------------------------------------------------------------------
# Swiss


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
    _check_entrants(ranked)
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


# ---------------------------------------------------------------------------------------------
# Single elimination


def _elimination_sizes(n: int, k: int, m: int, min_seats: int) -> list[int]:
    # A table must send someone home, so it seats at least m+1.
    return table_sizes(n, k, min_seats=max(min_seats, m + 1))


def _check_advance(k: int, m: int) -> None:
    if m < 1:
        raise ValueError(f"at least one entrant per table must advance (m={m})")
    if m >= k:
        raise ValueError(f"m={m} of {k} seats advance: nobody would be eliminated; "
                         f"choose m < {k}")


def elimination_plan(n: int, k: int, m: int, *, min_seats: int) -> list[int]:
    """Entrants in each round: the top m of each table (and the byes) advance until one table."""
    _check_seats(k, min_seats)
    _check_advance(k, m)
    if n < min_seats:
        raise ValueError(f"{n} entrant(s) cannot fill one table: a table needs at least "
                         f"{min_seats}")
    plan = [n]
    while plan[-1] > k:
        current = plan[-1]
        sizes = _elimination_sizes(current, k, m, min_seats)
        following = m * len(sizes) + current - sum(sizes)
        if following < min_seats:
            raise ValueError(f"with {current} entrants at {k}-seat tables and the top {m} "
                             f"advancing, only {following} reach the next round, fewer than "
                             f"a table's minimum of {min_seats}; choose a larger m")
        plan.append(following)
    return plan


def elimination_round(seeded: Sequence[int], k: int, *, min_seats: int,
                      m: int = 1) -> list[Table]:
    """One elimination round: byes to the top seeds, the rest snake-seeded across tables.

    Pass the same ``m`` as to ``elimination_plan``: a table must seat at least m+1, which
    shapes the table sizes. ``seeded`` is best first. The byes plus each table's top m
    (``advancers``) make the next round's field, of the size ``elimination_plan`` gives."""
    _check_entrants(seeded)
    _check_seats(k, min_seats)
    if len(seeded) > k:
        _check_advance(k, m)
    n = len(seeded)
    if n <= k:
        if n < min_seats:
            raise ValueError(f"{n} entrant(s) cannot fill one table: a table needs at least "
                             f"{min_seats}")
        return [tuple(seeded)]
    sizes = _elimination_sizes(n, k, m, min_seats)
    playing = list(seeded[n - sum(sizes):])
    tables: list[list[int]] = [[] for _ in sizes]
    # Snake order over the tables that still have seats: 0..t-1, t-1..0, ...
    forward = True
    pending = iter(playing)
    while any(len(t) < s for t, s in zip(tables, sizes)):
        indices = range(len(tables)) if forward else range(len(tables) - 1, -1, -1)
        for t in indices:
            if len(tables[t]) < sizes[t]:
                tables[t].append(next(pending))
        forward = not forward
    return [tuple(table) for table in tables]


def advancers(table_order: Sequence[int], m: int) -> list[int]:
    """The first m entrants of a table's final order."""
    if m < 1:
        raise ValueError(f"at least one entrant per table must advance (m={m})")
    return list(table_order[:m])
