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

# DFS nodes the Swiss search may visit before falling back to local improvement. The exact
# search settles every small field (the brute-force tests); the cap bounds the time of a round
# of a large field whose tail admits no repeat-free tables.
SWISS_SEARCH_NODES = 20_000


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
    """All rounds of a round robin: every pair shares a table as evenly as possible."""
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
        cycle = _circle_method(n, sizes)
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


def _circle_method(n: int, sizes: list[int]) -> list[list[list[int]]]:
    """Berger tables: n-1 rounds for even n, n rounds (one entrant out each) for odd n."""
    odd = n % 2
    ring = n + odd  # a phantom entrant n sits out opposite the real one with the bye
    rounds = []
    for r in range(ring - 1):
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
    """Greedy rounds, then simulated annealing on swaps within a round (pair-count variance)."""
    rng = random.Random(f"round_robin:{n}:{sizes}:{rounds}")
    seated = sum(sizes)
    byes_per_round = n - seated
    count = [[0] * n for _ in range(n)]
    schedule: list[list[list[int]]] = []
    for r in range(rounds):
        out = {(r * byes_per_round + i) % n for i in range(byes_per_round)}
        players = [e for e in range(n) if e not in out]
        rng.shuffle(players)
        schedule.append(_greedy_round(players, sizes, count, rng))
        for table in schedule[-1]:
            for a, b in itertools.combinations(table, 2):
                count[a][b] += 1
                count[b][a] += 1
    _anneal(schedule, count, n, rng)
    return schedule


def _greedy_round(players: list[int], sizes: list[int], count: list[list[int]],
                  rng: random.Random) -> list[list[int]]:
    """Fill tables one seat at a time with the candidate who has met the table least."""
    remaining = list(players)
    tables = []
    for size in sizes:
        table = [remaining.pop()]
        while len(table) < size:
            window = remaining[-64:]
            best = min(range(len(window)),
                       key=lambda i: sum(count[window[i]][x] for x in table))
            table.append(remaining.pop(len(remaining) - len(window) + best))
        tables.append(table)
    return tables


def _spread(histogram: list[int]) -> int:
    used = [c for c, h in enumerate(histogram) if h]
    return used[-1] - used[0] if used else 0


def _anneal(schedule: list[list[list[int]]], count: list[list[int]], n: int,
            rng: random.Random) -> None:
    """Swap entrants between tables of one round to even out the pair counts, in place."""
    rounds = len(schedule)
    histogram = [0] * (rounds + 2)
    for a in range(n):
        for b in range(a + 1, n):
            histogram[count[a][b]] += 1
    if _spread(histogram) <= 1:
        return
    movable = [r for r in range(rounds) if len(schedule[r]) > 1]
    if not movable:
        return
    tables_of = [[(t, i) for t, table in enumerate(schedule[r]) for i in range(len(table))]
                 for r in range(rounds)]
    pairs = n * (n - 1) // 2
    # Enough swaps to settle the small fields the tests sweep; capped so a large field's
    # schedule stays within seconds (it usually starts balanced and stops at once).
    steps = min(300_000, max(30_000, 40 * pairs * rounds))
    temperature = 2.0
    cooling = (0.02 / temperature) ** (1 / steps)
    best_key = (_spread(histogram), _sum_squares(count, n))
    best = [[list(t) for t in round_] for round_ in schedule]
    energy = best_key[1]
    random_ = rng.random
    choice = rng.choice
    for step in range(steps):
        temperature *= cooling
        r = choice(movable)
        round_ = schedule[r]
        ta, ia = choice(tables_of[r])
        tb, ib = choice(tables_of[r])
        if ta == tb:
            continue
        A, B = round_[ta], round_[tb]
        a, b = A[ia], B[ib]
        ca, cb = count[a], count[b]
        delta = 0
        for x in A:
            if x != a:
                delta += cb[x] - ca[x] + 1
        for y in B:
            if y != b:
                delta += ca[y] - cb[y] + 1
        delta *= 2
        if delta > 0 and random_() >= math.exp(-delta / temperature):
            continue
        for x in A:
            if x != a:
                histogram[ca[x]] -= 1
                ca[x] -= 1
                count[x][a] -= 1
                histogram[ca[x]] += 1
                histogram[cb[x]] -= 1
                cb[x] += 1
                count[x][b] += 1
                histogram[cb[x]] += 1
        for y in B:
            if y != b:
                histogram[cb[y]] -= 1
                cb[y] -= 1
                count[y][b] -= 1
                histogram[cb[y]] += 1
                histogram[ca[y]] -= 1
                ca[y] += 1
                count[y][a] += 1
                histogram[ca[y]] += 1
        A[ia], B[ib] = b, a
        energy += delta
        if delta < 0 or step % 64 == 0:
            key = (_spread(histogram), energy)
            if key < best_key:
                best_key = key
                best = [[list(t) for t in rr] for rr in schedule]
                if key[0] <= 1:
                    break
    schedule[:] = best


def _sum_squares(count: list[list[int]], n: int) -> int:
    return sum(count[a][b] ** 2 for a in range(n) for b in range(a + 1, n))


# ---------------------------------------------------------------------------------------------
# Swiss


def swiss_round(ranked: Sequence[int], meetings: Mapping[frozenset[int], int], k: int, *,
                min_seats: int, byes_had: Collection[int] = ()) -> list[Table]:
    """One Swiss round: tables cut by rank, with no repeat table-mate whenever that is possible."""
    _check_entrants(ranked)
    n = len(ranked)
    sizes = table_sizes(n, k, min_seats=min_seats)
    byes = _swiss_byes(ranked, n - sum(sizes), set(byes_had))
    players = [e for e in ranked if e not in byes]
    met: dict[int, set[int]] = {e: set() for e in players}
    for pair, times in meetings.items():
        if times > 0 and len(pair) == 2:
            a, b = tuple(pair)
            if a in met and b in met:
                met[a].add(b)
                met[b].add(a)
    tables = _repeat_free_tables(players, sizes, met)
    if tables is None:
        tables = _fewest_repeats(players, sizes, meetings)
    return [tuple(table) for table in tables]


def _swiss_byes(ranked: Sequence[int], count: int, had: set[int]) -> set[int]:
    if count == 0:
        return set()
    from_bottom = list(reversed(ranked))
    fresh = [e for e in from_bottom if e not in had]
    return set((fresh + [e for e in from_bottom if e in had])[:count])


def _repeat_free_tables(players: list[int], sizes: list[int],
                        met: dict[int, set[int]]) -> list[list[int]] | None:
    """Depth-first: the best-ranked unseated entrant opens the next table, its mates picked
    nearest in rank first, so the first solution found is the closest to the rank cut.
    Complete (None means none exists) unless the node budget runs out (then also None)."""
    size_counts: dict[int, int] = {}
    for s in sizes:
        size_counts[s] = size_counts.get(s, 0) + 1
    order = sorted(size_counts, reverse=True)
    seated = [False] * len(players)
    tables: list[list[int]] = []
    budget = [SWISS_SEARCH_NODES]

    def search(start: int) -> bool:
        while start < len(players) and seated[start]:
            start += 1
        if start == len(players):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        leader = players[start]
        seated[start] = True
        free = [i for i in range(start + 1, len(players))
                if not seated[i] and players[i] not in met[leader]]
        for size in order:
            if not size_counts[size]:
                continue
            size_counts[size] -= 1
            for mates in _compatible(free, size - 1, players, met):
                for i in mates:
                    seated[i] = True
                tables.append([leader] + [players[i] for i in mates])
                if search(start + 1):
                    return True
                tables.pop()
                for i in mates:
                    seated[i] = False
                if budget[0] < 0:
                    break
            size_counts[size] += 1
            if budget[0] < 0:
                break
        seated[start] = False
        return False

    return tables if search(0) else None


def _compatible(free: list[int], need: int, players: list[int], met: dict[int, set[int]]):
    """Index tuples of ``need`` mutually unmet entrants from ``free``, lexicographic in rank."""
    chosen: list[int] = []

    def extend(at: int):
        if len(chosen) == need:
            yield tuple(chosen)
            return
        for j in range(at, len(free) - (need - len(chosen)) + 1):
            candidate = players[free[j]]
            if any(players[c] in met[candidate] for c in chosen):
                continue
            chosen.append(free[j])
            yield from extend(j + 1)
            chosen.pop()

    return extend(0)


def _fewest_repeats(players: list[int], sizes: list[int],
                    meetings: Mapping[frozenset[int], int]) -> list[list[int]]:
    """Rank cut improved by swaps between nearby tables: fewest repeat meetings first, then
    the least displacement from the rank cut."""
    tables: list[list[int]] = []
    at = 0
    for size in sizes:
        tables.append(players[at:at + size])
        at += size
    home = {e: t for t, table in enumerate(tables) for e in table}

    def times(a: int, b: int) -> int:
        return meetings.get(frozenset((a, b)), 0)

    def cost_with(table: list[int], leaving: int, joining: int) -> int:
        return sum(times(joining, x) for x in table if x != leaving)

    def cost_without(table: list[int], leaving: int) -> int:
        return sum(times(leaving, x) for x in table if x != leaving)

    window = 3
    improved = True
    passes = 0
    while improved and passes < 20:
        improved = False
        passes += 1
        for ta in range(len(tables)):
            for tb in range(ta + 1, min(len(tables), ta + 1 + window)):
                A, B = tables[ta], tables[tb]
                for ia in range(len(A)):
                    for ib in range(len(B)):
                        a, b = A[ia], B[ib]
                        repeats = (cost_with(A, a, b) + cost_with(B, b, a)
                                   - cost_without(A, a) - cost_without(B, b))
                        moved = (abs(home[b] - ta) + abs(home[a] - tb)
                                 - abs(home[a] - ta) - abs(home[b] - tb))
                        if (repeats, moved) < (0, 0):
                            A[ia], B[ib] = b, a
                            improved = True
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
    """One elimination round: byes to the top seeds, the rest snake-seeded across tables."""
    _check_entrants(seeded)
    _check_seats(k, min_seats)
    _check_advance(k, m) if len(seeded) > k else None
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
