"""Round robin of k-seat tables: every pair shares a table as evenly as possible.

Pure (``competition.formats``): perfect designs where known, else a search seeded from its own
inputs, so the same call returns the same rounds. Byes rotate through the entrants in their given
order, so over any number of rounds the bye counts differ by at most one.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

from competition.formats.tables import Round, Table, check_entrants, table_sizes

# Annealing runs a round robin may spend looking for ever wider bands of pair counts.
MAX_ANNEALS = 4


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
    check_entrants(entrants)
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
    power = _prime_power(q)
    if power is None:
        raise ValueError(f"there is no field of {q} elements: {q} is not a prime power")
    p, e = power

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
        seats: list[tuple[int, int, int]] = []
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
