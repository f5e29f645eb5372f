"""Built-in Divee! bots: ``random`` and ``heuristic`` (observation and legal actions only).

The heuristic bot maximises its expected final score. Ending the turn by claiming card c
with dice d is worth ``points(c, d) + FUTURE[hand without c]``, where ``FUTURE[mask]`` is the
expected score of the cards still in hand under the same policy (a dynamic programme over
the 64 hands, see ``future_values``). Re-rolls are an exact expectimax over the rolls left
this turn, using constant transition tables (210 keeps, 4,116 outcomes in all). Without the
special tiles this is the score-maximising solo policy (expected score 23.10); the tiles are
valued by two hand-set constants, and a flip looks one step ahead only.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations_with_replacement, product

from engines.bots import random_bot
from engines.divee.cards import ALL_DICE, CARDS, KEEPS, POINTS, flip

# What keeping a tile for a later turn is worth, in points (hand-set; the tiles are not in FUTURE).
OMR_VALUE = 1.2
FLIP_VALUE = 2.2

DICE_INDEX = {dice: index for index, dice in enumerate(ALL_DICE)}
ALL_KEEPS = tuple(keep for size in range(5) for keep in combinations_with_replacement(range(1, 7), size))
KEEP_INDEX = {keep: index for index, keep in enumerate(ALL_KEEPS)}


def _rolled_distributions() -> list:
    """For m = 0..5 dice rolled: {sorted values: number of the 6**m ordered outcomes}."""
    return [Counter(tuple(sorted(values)) for values in product(range(1, 7), repeat=m)) for m in range(6)]


def _transitions() -> tuple:
    """For each keep: ((dice index, probability), ...) after re-rolling the dice not kept."""
    rolled = _rolled_distributions()
    table = []
    for keep in ALL_KEEPS:
        m = 5 - len(keep)
        total = 6 ** m
        table.append(tuple((DICE_INDEX[tuple(sorted(keep + values))], count / total)
                           for values, count in rolled[m].items()))
    return tuple(table)


TRANSITIONS = _transitions()
INITIAL_ROLL = TRANSITIONS[KEEP_INDEX[()]]
# For each dice index: the indices of its keeps (proper sub-multisets).
DICE_KEEPS = tuple(tuple(KEEP_INDEX[keep] for keep in KEEPS[dice]) for dice in ALL_DICE)


def _expectations(values: list) -> list:
    """Expected value, for every keep, of re-rolling the other dice and ending with ``values``."""
    return [sum(p * values[index] for index, p in transitions) for transitions in TRANSITIONS]


def _end_values(mask: int, future) -> list:
    """For every dice tuple: the best ``points(card) + future[mask without card]`` (no first-roll bonus)."""
    options = [(card, future[mask & ~(1 << card)]) for card in range(6) if mask >> card & 1]
    return [max(POINTS[dice][0][card] + later for card, later in options) for dice in ALL_DICE]


def _roll_tables(mask: int, future, roll_costs: list) -> tuple[list, list]:
    """Values of dice and keeps by rolls left. ``roll_costs[j]`` is the cost of the roll made with
    j + 1 rolls left. Returns (values, expectations): values[j][dice] with j rolls left, and
    expectations[j][keep] = expected values[j] after re-rolling around that keep."""
    end = _end_values(mask, future)
    values = [end]
    expectations = []
    for cost in roll_costs:
        expect = _expectations(values[-1])
        expectations.append(expect)
        values.append([max(end[d], max(expect[k] for k in DICE_KEEPS[d]) - cost)
                       for d in range(len(ALL_DICE))])
    return values, expectations


def future_values() -> list:
    """FUTURE[mask]: expected points of the cards in ``mask`` under this bot's policy, no tiles.

    Hands are solved from one card up: a turn is an initial roll (first-roll bonus on the
    claim), then two re-rolls, each chosen to maximise points now plus the value of the rest.
    The first-roll Divee (which ends the game) is ignored: its chance is 6 in 7,776.
    """
    future = [0.0] * 64
    for mask in sorted(range(1, 64), key=lambda m: (bin(m).count("1"), m)):
        values, expectations = _roll_tables(mask, future, [0.0, 0.0])
        options = [(card, future[mask & ~(1 << card)]) for card in range(6) if mask >> card & 1]
        after_roll = expectations[-1]
        first = [max(max(POINTS[dice][1][card] + later for card, later in options),
                     max(after_roll[k] for k in DICE_KEEPS[d]))
                 for d, dice in enumerate(ALL_DICE)]
        future[mask] = sum(p * first[d] for d, p in INITIAL_ROLL)
    return future


# future_values(), rounded (a test checks it; solving it takes ~0.2 s, too long for every import).
FUTURE = (
    0.0000, 0.4603, 2.3665, 4.3339, 1.8894, 3.4703, 5.1508, 7.6633,
    1.9094, 3.5003, 5.5526, 8.1477, 4.4994, 6.7636, 8.8363, 11.7781,
    3.9828, 4.7793, 7.7165, 9.7098, 6.9588, 8.5841, 11.1017, 13.5917,
    6.8738, 8.4730, 11.4419, 13.9305, 10.1874, 12.3895, 15.1378, 18.0088,
    2.9828, 3.7793, 6.7166, 8.7098, 5.9588, 7.5841, 10.1017, 12.5917,
    5.8738, 7.4730, 10.4419, 12.9305, 9.1874, 11.3895, 14.1378, 17.0088,
    6.9828, 8.2029, 11.9973, 13.9967, 11.0712, 12.6959, 16.0214, 18.4103,
    10.7247, 12.4327, 16.2072, 18.5761, 14.8428, 16.9355, 20.3807, 23.1043,
)


def heuristic_bot(observation: dict, legal_actions: list, rng: random.Random) -> dict:
    """Maximises expected final score: points now plus the expected value of the rest of the hand."""
    seat = observation["seats"][observation["me"]]
    mask = sum(1 << i for i, card in enumerate(CARDS) if seat["cards"][card] == "hand")
    dice = tuple(observation["dice"])
    # Rolls still available this turn, listed from the last one: One More Roll comes last.
    omr_left = seat["one_more_roll"]
    roll_costs = ([OMR_VALUE] if omr_left else []) + [0.0] * (2 - observation["rerolls_used"])
    values, expectations = _roll_tables(mask, FUTURE, roll_costs)
    rolls_left = len(roll_costs)
    preview = observation["claim_preview"]
    best, best_value = legal_actions[0], float("-inf")
    for action in legal_actions:
        kind = action["type"]
        if kind == "claim":
            card = CARDS.index(action["card"])
            value = preview[action["card"]] + FUTURE[mask & ~(1 << card)]
        elif kind in ("reroll", "one_more_roll"):
            value = expectations[rolls_left - 1][KEEP_INDEX[tuple(action["keep"])]] - roll_costs[-1]
        else:  # flip: no later flip is modelled, and it removes the first-roll bonus
            value = values[rolls_left][DICE_INDEX[flip(dice, action["value"])]] - FLIP_VALUE
        if value > best_value + 1e-9:
            best, best_value = action, value
    return best


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
