"""Built-in Divee! bots: ``random`` and ``heuristic`` (observation and legal actions only).

The heuristic bot plays an expectimax over the re-rolls left in its turn: ending the turn
with dice d is worth the best ``points(card, d) - RESERVE[card]`` over the cards in its hand
(a card's reserve is roughly what it would earn if kept for a later turn, so discarding a
card costs its reserve). Re-roll values are exact expectations over the dice not kept, using
constant transition tables computed at import (210 keeps, 4,116 outcomes in all).
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement, product

from engines.bots import random_bot
from engines.divee.cards import ALL_DICE, CARDS, KEEPS, POINTS, flip

# What a card is worth if kept for later (hand-tuned, see module docstring).
RESERVE = {"divee": 1.5, "four_dice": 3.0, "straight": 3.5, "full_house": 2.5,
           "big_dive": 3.0, "small_dive": 2.2}
OMR_COST = 0.8    # using the One More Roll tile now forgoes it in a later turn
FLIP_COST = 1.2   # likewise for the Flip Over tile

DICE_INDEX = {dice: index for index, dice in enumerate(ALL_DICE)}


def _transitions(keep: tuple) -> tuple:
    """((dice index, probability), ...) of the dice after re-rolling every die not in ``keep``."""
    rolled = 5 - len(keep)
    outcomes = Counter(tuple(sorted(keep + values)) for values in product(range(1, 7), repeat=rolled))
    total = 6 ** rolled
    return tuple((DICE_INDEX[dice], count / total) for dice, count in sorted(outcomes.items()))


ALL_KEEPS = tuple(keep for size in range(5) for keep in combinations_with_replacement(range(1, 7), size))
KEEP_INDEX = {keep: index for index, keep in enumerate(ALL_KEEPS)}
TRANSITIONS = tuple(_transitions(keep) for keep in ALL_KEEPS)
# For each dice index: the indices of its keeps (proper sub-multisets).
DICE_KEEPS = tuple(tuple(KEEP_INDEX[keep] for keep in KEEPS[dice]) for dice in ALL_DICE)


def _end_values(hand: list) -> list:
    """Value of ending the turn with each dice tuple (no first-roll bonus): best claim minus reserve."""
    cards = [(CARDS.index(card), RESERVE[card]) for card in hand]
    values = []
    for dice in ALL_DICE:
        points = POINTS[dice][0]
        values.append(max(points[card] - reserve for card, reserve in cards))
    return values


def _expectations(values: list) -> list:
    """Expected value, for every keep, of re-rolling the other dice and scoring with ``values``."""
    return [sum(p * values[index] for index, p in transitions) for transitions in TRANSITIONS]


def _roll_tables(hand: list, roll_costs: list) -> tuple[list, list]:
    """Values of dice and keeps by rolls left. ``roll_costs[j]`` is the cost of the roll made with
    j + 1 rolls left. Returns (values, expectations): values[j][dice] with j rolls left, and
    expectations[j][keep] = expected values[j] after a roll."""
    end = _end_values(hand)
    values = [end]
    expectations = []
    for cost in roll_costs:
        expect = _expectations(values[-1])
        expectations.append(expect)
        values.append([
            max(end[d], max(expect[k] for k in DICE_KEEPS[d]) - cost) for d in range(len(ALL_DICE))
        ])
    return values, expectations


def heuristic_bot(observation: dict, legal_actions: list, rng: random.Random) -> dict:
    """Maximises this turn's points minus the reserve value of the card (or tile) it uses up."""
    me = observation["me"]
    seat = observation["seats"][me]
    hand = [card for card in CARDS if seat["cards"][card] == "hand"]
    dice = tuple(observation["dice"])
    regular_left = 2 - observation["rerolls_used"]
    # Rolls still available this turn, the last one first (One More Roll comes after the regular ones).
    roll_costs = ([OMR_COST] if seat["one_more_roll"] else []) + [0.0] * regular_left
    values, expectations = _roll_tables(hand, roll_costs)
    rolls_left = len(roll_costs)
    preview = observation["claim_preview"]
    best, best_value = legal_actions[0], float("-inf")
    for action in legal_actions:
        kind = action["type"]
        if kind == "claim":
            value = preview[action["card"]] - RESERVE[action["card"]]
        elif kind in ("reroll", "one_more_roll"):
            value = expectations[rolls_left - 1][KEEP_INDEX[tuple(action["keep"])]] - roll_costs[-1]
        else:  # flip: no future flip is modelled, and it removes the first-roll bonus
            value = values[rolls_left][DICE_INDEX[flip(dice, action["value"])]] - FLIP_COST
        if value > best_value + 1e-9:
            best, best_value = action, value
    return best


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
