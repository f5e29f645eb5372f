"""Seat orders of a rotation group (duplicate seeds): pure functions, no Django.

A table of k entrants plays one seed once per seat order, so every entrant meets the same
chance from every seat; luck and seat advantage cancel within the group. Ladders and
tournaments both create their games through these orders.
"""

from __future__ import annotations

from itertools import permutations

# "All orders" grows as k!: beyond four seats (24 games) a group would be too long to be useful.
MAX_ALL_ORDERS_SEATS = 4


def seat_orders(table_size: int, *, all_orders: bool = False) -> list[tuple[int, ...]]:
    """One tuple per game of the group: ``orders[g][seat]`` is the index (in the table's
    order) of the entrant playing ``seat`` in game ``g``.

    Cyclic by default (k games: game g seats entrant ``(seat + g) % k`` at ``seat``, so each
    entrant plays each seat once); ``all_orders`` gives every permutation (k! games, k <= 4).
    """
    if table_size < 1:
        raise ValueError(f"a table has at least one seat, not {table_size}")
    if all_orders:
        if table_size > MAX_ALL_ORDERS_SEATS:
            raise ValueError(f"all seat orders are offered up to {MAX_ALL_ORDERS_SEATS} seats, "
                             f"not {table_size} ({table_size}! games)")
        return list(permutations(range(table_size)))
    return [tuple((seat + game) % table_size for seat in range(table_size)) for game in range(table_size)]


def seats_of_entrant(orders: list[tuple[int, ...]], entrant: int) -> list[int]:
    """The seat ``entrant`` (an index in the table's order) plays in each game of the group."""
    return [order.index(entrant) for order in orders]
