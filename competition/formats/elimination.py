"""Single elimination of k-seat tables: byes to the top seeds, the rest snake-seeded.

Pure (``competition.formats``). The top ``m`` of each table and the byes advance until one table
is left.
"""

from __future__ import annotations

from collections.abc import Sequence

from competition.formats.tables import Table, check_entrants, check_seats, table_sizes


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
    check_seats(k, min_seats)
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
    check_entrants(seeded)
    check_seats(k, min_seats)
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
