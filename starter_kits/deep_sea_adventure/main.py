"""Deep Sea Adventure starter bot: dive for deeper treasure, turn back while the air allows.

Run it locally against the built-in random bot:

    python -m workers.play deep_sea_adventure starter_kits/deep_sea_adventure/main.py builtin:random

How it decides (rules: docs/rules/deep_sea_adventure.md):
- observation["decision"] is "direction" (actions {"type": "continue"} / {"type": "turn_back"})
  or "search" ({"type": "pass"}, {"type": "take"}, {"type": "drop", ...}).
- observation["divers"][observation["me"]] is my diver: "position" (0 = submarine),
  "direction" ("down"/"up"), "carried" (my chips, their exact values unknown), "returned".
- observation["air"] is the shared air; every diver's carried chips use it up each turn.
Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
Improve it: estimate the other divers' air use, value chips by their level, drop chips
that will not make it home...
"""

import arena_bot

CARRY_LIMIT = 2          # chips to carry before heading home
MARGIN = 2.0             # extra turns of air kept in hand


def turns_home(position, load):
    """About how many turns it takes to get back from ``position`` carrying ``load`` chips."""
    speed = max(0.5, 4.0 - load)
    return position / speed


def turns_of_air(observation, load):
    """About how many of my turns the shared air still allows."""
    carried = sum(len(d["carried"]) for d in observation["divers"] if not d["returned"])
    carried += load - len(observation["divers"][observation["me"]]["carried"])
    return observation["air"] / max(1, carried)


def choose(observation, legal_actions, rng):
    me = observation["divers"][observation["me"]]
    load = len(me["carried"])
    actions = {action["type"]: action for action in legal_actions}
    if observation["decision"] == "direction":
        if load == 0:
            return actions["continue"]
        going_home_now = turns_home(me["position"] + 4, load) + MARGIN > turns_of_air(observation, load)
        if load >= CARRY_LIMIT or going_home_now:
            return actions["turn_back"]
        return actions["continue"]
    if "take" in actions:
        affordable = turns_home(me["position"], load + 1) + MARGIN <= turns_of_air(observation, load + 1)
        if load < CARRY_LIMIT + (me["direction"] == "up") and affordable:
            return actions["take"]
    return actions.get("pass", legal_actions[0])


if __name__ == "__main__":
    arena_bot.run(choose)
