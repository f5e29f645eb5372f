"""Built-in bots for Deep Sea Adventure: ``random`` and ``heuristic``.

The heuristic reads only its observation (public state and its own secured values) and the
legal actions. It estimates how many of its own turns the shared air still allows and how
many turns it needs to get home with a given load, and keeps a safety margin between the two.
"""

from __future__ import annotations

from engines.bots import random_bot

# Probability of each roll of two dice with faces 1, 1, 2, 2, 3, 3 (rules section 2).
_ROLLS = {2: 1 / 9, 3: 2 / 9, 4: 3 / 9, 5: 2 / 9, 6: 1 / 9}
# Expected spaces moved per turn with load k: E[max(0, A + B - k)].
_SPEED = tuple(sum(p * max(0, roll - k) for roll, p in _ROLLS.items()) for k in range(40))

_SAFETY = 1.05      # turns needed are multiplied by this before comparing with turns available
_SLACK = 1.0       # and this many extra turns are kept in hand
_TARGET_LOAD = 3    # never carry more than this many items on the way down


def _turns_available(observation: dict, my_load: int) -> float:
    """About how many more of my turns the air allows, given every active diver's load."""
    others = sum(
        len(diver["carried"]) for seat, diver in enumerate(observation["divers"])
        if seat != observation["me"] and not diver["returned"]
    )
    per_cycle = my_load + others
    if per_cycle == 0:
        # Nobody carries anything yet; loads will grow, so assume one item per active diver.
        per_cycle = max(1, sum(1 for diver in observation["divers"] if not diver["returned"]))
    return observation["air"] / per_cycle


def _turns_needed(position: int, load: int) -> float:
    """Expected turns to get from ``position`` back to the submarine with ``load`` items."""
    speed = _SPEED[load]
    if speed <= 0:
        return float("inf")
    return position / speed


def _safe(observation: dict, position: int, load: int, this_turn_moves: bool) -> bool:
    """True when the diver should get home with ``load`` items, starting at ``position``."""
    available = _turns_available(observation, load) + (1 if this_turn_moves else 0)
    return _turns_needed(position, load) * _SAFETY + _SLACK <= available


def heuristic_bot(observation: dict, legal_actions: list, rng) -> dict:
    """Dive for deeper treasure, carry a few items, and turn back while the air still allows it."""
    me = observation["divers"][observation["me"]]
    position = me["position"]
    load = len(me["carried"])
    kinds = {action["type"]: action for action in legal_actions}

    if observation["decision"] == "direction":
        if load == 0:
            return kinds["continue"]
        # Going on costs at least one more turn of distance: look a few spaces deeper.
        deeper = position + _SPEED[load]
        if load >= _TARGET_LOAD or not _safe(observation, deeper, load, this_turn_moves=False):
            return kinds["turn_back"]
        return kinds["continue"]

    # Search decision.
    going_up = me["direction"] == "up"
    if "take" in kinds:
        space = observation["path"][position - 1]
        value_hint = sum(space["levels"])  # a chip's level is all that is known about its value
        if going_up:
            take = load < _TARGET_LOAD + 1 and _safe(observation, position, load + 1, this_turn_moves=False)
        else:
            # Skip shallow level-1 chips early in the round; deeper levels are worth more.
            shallow = value_hint <= 1 and observation["air"] > 15
            take = (not shallow and load < _TARGET_LOAD
                    and _safe(observation, position + _SPEED[load + 1], load + 1, this_turn_moves=False))
        return kinds["take"] if take else kinds["pass"]

    drops = [action for action in legal_actions if action["type"] == "drop"]
    # The trip home looks too long: give up the item with the lowest levels to move faster.
    # Dropping the only item never helps, since it scores nothing either way.
    if drops and load >= 2 and not _safe(observation, position, load, this_turn_moves=False):
        levels = [sum(item) for item in me["carried"]]
        return drops[min(range(load), key=lambda i: (levels[i], i))]
    return kinds["pass"]


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
