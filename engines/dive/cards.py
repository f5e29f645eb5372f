"""The 36 ocean cards of Dive, their orientations and the ocean view (rules sections 2.1 and 5.1).

Everything here is an immutable table built once at import, or a pure function.
"""

from __future__ import annotations

SHARK, TURTLE, MANTA = "shark", "turtle", "manta"
_SPECIES = {"S": SHARK, "T": TURTLE, "M": MANTA}

# Card id -> (printed creatures as "<cell><S/T/M>" strings, haze), copied from the table of 2.1.
_PRINTED = (
    ((), 1), ((), 2), ((), 1), ((), 2), ((), 1), ((), 2),
    (("0S",), 2), (("4S",), 1), (("1S",), 2), (("8S",), 1), (("5S",), 2),
    (("2T",), 1), (("4T",), 2), (("7T",), 1), (("0T",), 2), (("3T",), 1), (("6T",), 2), (("5T",), 1),
    (("0T", "8T"), 2), (("1T", "3T"), 1), (("2T", "4T"), 2), (("5T", "7T"), 1),
    (("4M",), 1), (("1M",), 2), (("6M",), 1), (("3M",), 2), (("8M",), 1), (("2M",), 2), (("7M",), 1),
    (("2S", "6T"), 2), (("7S", "1T"), 1), (("3S", "4T"), 2),
    (("6S", "0T", "2T"), 1),
    (("1S", "8M"), 2), (("4S", "0M"), 1), (("0S", "5M"), 2),
)
NUM_CARDS = len(_PRINTED)

# One clockwise quarter turn: cell i goes to ROT[i].
ROT = (2, 5, 8, 1, 4, 7, 0, 3, 6)

# CREATURES[card] = ((cell, species), ...) as printed (orientation 0).
CREATURES = tuple(
    tuple((int(code[:-1]), _SPECIES[code[-1]]) for code in creatures) for creatures, _ in _PRINTED
)
HAZE = tuple(haze for _, haze in _PRINTED)
HAS_SHARK = tuple(any(sp == SHARK for _, sp in cs) for cs in CREATURES)
TURTLES = tuple(sum(1 for _, sp in cs if sp == TURTLE) for cs in CREATURES)
HAS_MANTA = tuple(any(sp == MANTA for _, sp in cs) for cs in CREATURES)


def rotate(cell: int, orientation: int) -> int:
    """The cell where a creature printed in ``cell`` appears after ``orientation`` quarter turns."""
    for _ in range(orientation):
        cell = ROT[cell]
    return cell


# ROTATED[card][k] = ((cell, species), ...) of the card lying in orientation k.
ROTATED = tuple(
    tuple(tuple((rotate(cell, k), sp) for cell, sp in cs) for k in range(4)) for cs in CREATURES
)


def ocean_view(levels) -> list:
    """The ocean view of 5.1 for the level cards ``[(card, orientation), ...]`` (level 1 first)."""
    view: list = [None] * 9
    tint = 0
    for card, orientation in levels:
        tint += HAZE[card]
        for cell, species in ROTATED[card][orientation]:
            if view[cell] is None:
                view[cell] = {"species": species, "tint": tint}
    return view
