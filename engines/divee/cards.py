"""Divee! cards and dice arithmetic, as pure functions and constant lookup tables.

Rules: /work/shared/rules/divee.md, sections 2 and 4.2. Dice are always a sorted tuple of
five values 1..6; there are only 252 such tuples, so everything that depends on the dice
alone (completed cards, points, keep lists, flips) is computed once at import.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement, product

# Canonical card order (section 2); claims are listed in this order.
CARDS = ("divee", "four_dice", "straight", "full_house", "big_dive", "small_dive")
DIVEE, FOUR_DICE, STRAIGHT, FULL_HOUSE, BIG_DIVE, SMALL_DIVE = range(6)
BASE_POINTS = (10, 8, 7, 5, 2, 1)
# Cards that earn +2 when claimed on the initial roll (step 4, D8).
FIRST_ROLL_BONUS_CARDS = frozenset((FOUR_DICE, STRAIGHT, FULL_HOUSE))
STRAIGHTS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))

# Every sorted five-dice tuple (252 of them).
Dice = tuple[int, ...]
ALL_DICE: tuple[Dice, ...] = tuple(combinations_with_replacement(range(1, 7), 5))


def completes(card: int, dice: tuple) -> bool:
    """True when the sorted ``dice`` meet the condition of ``card`` (section 2, D6)."""
    counts = sorted(Counter(dice).values(), reverse=True)
    if card == DIVEE:
        return counts[0] == 5
    if card == FOUR_DICE:
        return counts[0] >= 4
    if card == STRAIGHT:
        return tuple(dice) in STRAIGHTS
    if card == FULL_HOUSE:
        return counts[0] == 5 or counts[:2] == [3, 2]
    if card == BIG_DIVE:
        return any(value >= 4 for value in dice)
    if card == SMALL_DIVE:
        return any(value <= 3 for value in dice)
    raise ValueError(f"unknown card index {card}")


def dive_bonus(matching: int) -> int:
    """Bonus of Big Dive / Small Dive for ``matching`` dice (D7): 0, +1 for 2, +2 for 3 or more."""
    return 0 if matching <= 1 else (1 if matching == 2 else 2)


def points(card: int, dice: tuple, first_roll: bool) -> int:
    """Points that claiming ``card`` with ``dice`` gives (0 when the dice do not complete it)."""
    if not completes(card, dice):
        return 0
    if card == BIG_DIVE:
        return BASE_POINTS[card] + dive_bonus(sum(1 for value in dice if value >= 4))
    if card == SMALL_DIVE:
        return BASE_POINTS[card] + dive_bonus(sum(1 for value in dice if value <= 3))
    bonus = 2 if first_roll and card in FIRST_ROLL_BONUS_CARDS else 0
    return BASE_POINTS[card] + bonus


def keeps(dice: tuple) -> list[tuple]:
    """Every distinct proper sub-multiset of ``dice`` as a sorted tuple, ordered by (len, K) (D3)."""
    counts = sorted(Counter(dice).items())
    found = set()
    for taken in product(*(range(count + 1) for _, count in counts)):
        keep = tuple(value for (value, _), n in zip(counts, taken) for _ in range(n))
        if len(keep) < 5:
            found.add(keep)
    return sorted(found, key=lambda keep: (len(keep), keep))


def flip(dice: tuple, value: int) -> tuple:
    """The dice after one die showing ``value`` is turned over to 7 - value, sorted again."""
    values = list(dice)
    values.remove(value)
    values.append(7 - value)
    return tuple(sorted(values))


def flip_values(dice: tuple) -> tuple:
    """The distinct values among the dice, increasing: the legal flip choices."""
    return tuple(sorted(set(dice)))


# Points of each card for each dice tuple: POINTS[dice][first_roll] is a 6-tuple in card order.
POINTS = {
    dice: (tuple(points(card, dice, False) for card in range(6)),
           tuple(points(card, dice, True) for card in range(6)))
    for dice in ALL_DICE
}
KEEPS = {dice: tuple(keeps(dice)) for dice in ALL_DICE}
FLIP_VALUES = {dice: flip_values(dice) for dice in ALL_DICE}
