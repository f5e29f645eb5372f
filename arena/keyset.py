"""Keyset pagination on ids, shared by the API and the pages: a deep page costs what the first costs.

A list walks its rows in id order (newest first for matches, oldest first for histories). A page
is found by the id where it starts, never by an offset, and nothing is counted: ``before=ID``
gives the rows with smaller ids, ``after=ID`` those with larger ids, each read from an index in
order and cut after one row more than the page needs (that row only says whether there is more).
"""

from __future__ import annotations

from dataclasses import dataclass

# Ids are PostgreSQL bigints (and SQLite integers): anything outside is no id of a row.
MAX_ID = 2**63 - 1


@dataclass(frozen=True)
class Bounds:
    """Where a page starts: rows with ids below ``before`` and/or above ``after``."""

    before: int | None = None
    after: int | None = None

    def as_filters(self, field_name: str = "pk") -> dict:
        """The bounds as queryset filter arguments on ``field_name``."""
        filters = {}
        if self.before is not None:
            filters[f"{field_name}__lt"] = self.before
        if self.after is not None:
            filters[f"{field_name}__gt"] = self.after
        return filters


@dataclass
class KeysetPage:
    """One page: its rows in display order, and the cursors of its neighbours (None: no such page)."""

    rows: list
    next_bounds: Bounds | None = None
    previous_bounds: Bounds | None = None
    newest_first: bool = True

    @property
    def has_next(self) -> bool:
        return self.next_bounds is not None

    @property
    def has_previous(self) -> bool:
        return self.previous_bounds is not None


def parse_id(value: str | None) -> int | None:
    """A cursor id from a query string: None when absent; ValueError unless a positive bigint."""
    if value is None or value == "":
        return None
    if not value.isascii() or not value.isdigit():
        raise ValueError("Use a row id (a positive integer).")
    number = int(value)
    if not 1 <= number <= MAX_ID:
        raise ValueError(f"Use a row id between 1 and {MAX_ID}.")
    return number


def parse_bounds(before: str | None, after: str | None) -> Bounds:
    """``before``/``after`` from a query string; ValueError (with a message) for a bad value."""
    return Bounds(before=parse_id(before), after=parse_id(after))


def walks_down(bounds: Bounds, newest_first: bool = True) -> bool:
    """True when the page at ``bounds`` is read in descending id order."""
    if newest_first:
        return bounds.after is None or bounds.before is not None
    return bounds.before is not None and bounds.after is None


def keyset_page(queryset, *, bounds: Bounds, size: int, newest_first: bool = True,
                order_field: str = "pk") -> KeysetPage:
    """The page of ``queryset`` that starts at ``bounds``, ``size`` rows, ordered by id.

    ``newest_first`` lists walk ids downwards (``before`` continues, ``after`` goes back),
    the others upwards; with both bounds, the rows between them, in the list's own direction.
    One query: the bounds, an ORDER BY id and a LIMIT of ``size + 1``. ``order_field`` sorts by
    another column instead, for a queryset whose rows it orders exactly as their ids (the index
    that serves the list is on it); the bounds and the cursors stay ids.
    """
    walking_down = walks_down(bounds, newest_first)
    order = f"-{order_field}" if walking_down else order_field
    rows = list(queryset.filter(**bounds.as_filters()).order_by(order)[:size + 1])
    more = len(rows) > size
    rows = rows[:size]
    onward = walking_down == newest_first  # walking in the list's own direction
    if not onward:
        rows.reverse()
    started_at_cursor = bounds.before is not None or bounds.after is not None
    has_next = more if onward else True
    has_previous = started_at_cursor if onward else more
    page = KeysetPage(rows=rows, newest_first=newest_first)
    if rows:
        first, last = rows[0].pk, rows[-1].pk
        if has_next:
            page.next_bounds = Bounds(before=last) if newest_first else Bounds(after=last)
        if has_previous:
            page.previous_bounds = Bounds(after=first) if newest_first else Bounds(before=first)
    elif started_at_cursor:
        page.previous_bounds = Bounds()  # an empty page past either end: back to the first page
    return page
