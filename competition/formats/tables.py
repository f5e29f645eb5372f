"""Table sizes and the checks every format shares (``competition.formats``).

Pure functions over plain data (entrants are ints, a table is a tuple of entrants, a round is a
list of tables); no Django, no I/O, no clocks. An entrant that sits at no table of a round has a
*bye* for that round.
"""

from __future__ import annotations

from collections.abc import Sequence

Table = tuple[int, ...]
Round = list[Table]


def table_sizes(n: int, k: int, *, min_seats: int) -> list[int]:
    """Sizes of one round's tables for ``n`` entrants at tables of at most ``k`` seats."""
    check_seats(k, min_seats)
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


def check_seats(k: int, min_seats: int) -> None:
    if k < 1:
        raise ValueError(f"a table needs at least one seat (k={k})")
    if min_seats < 1:
        raise ValueError(f"the minimum table size must be at least 1 (min_seats={min_seats})")
    if k < min_seats:
        raise ValueError(f"tables of {k} seat(s) are below the game's minimum of {min_seats}")


def check_entrants(entrants: Sequence[int]) -> None:
    if len(set(entrants)) != len(entrants):
        seen: set[int] = set()
        doubled: set[int] = set()
        for entrant in entrants:
            if entrant in seen:
                doubled.add(entrant)
            seen.add(entrant)
        raise ValueError(f"entrants appear more than once: {sorted(doubled)}")
