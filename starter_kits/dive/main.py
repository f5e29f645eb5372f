"""Dive starter bot: call what the ocean view makes likelier, dive while the calls look safe.

Run it locally against the built-in random bot (and the built-in heuristic, which it is not):

    python -m workers.play dive starter_kits/dive/main.py builtin:random

The decisions (rules: docs/rules/dive.md), by observation["phase"], made by every seat at once:
- "plan": a secret list of calls, e.g. {"type": "plan", "calls": ["air", "shark"]}: what you
  expect to see, level by level, through the stacked transparent cards of observation["ocean_view"];
- "air": which air tokens to give up ({"type": "air", "token_levels": [...]}).
observation["positions"] are the divers' depths, observation["carried_levels"] my load.
The sandbox mounts the read-only ``engines`` package: ``engines.dive.bots.level_beliefs``
turns the ocean view into per-level probabilities (shark, manta, expected turtles).

How this bot decides, simply (the built-in heuristic weighs expected advances, companions and
the manta's reach instead):
- plan: call the likelier answer at each level and go one level deeper while the chance that
  every call so far is right stays above SAFE (in deep water, where one wrong call wipes the
  round, above DEEP_SAFE); it never uses its companion;
- air: put the biggest tokens on the levels with the most turtles expected.
Improve it: count on the manta (it carries you to the next pawn ahead), use the companion...
"""

import arena_bot
from engines.dive.bots import level_beliefs

SAFE = 0.55        # keep diving while P(every call right) stays above this
DEEP_SAFE = 0.75   # the same in deep water (position 16 and beyond)
DEEP_WATER = 16


def plan(observation, legal_actions, beliefs):
    deep = observation["positions"][observation["seat"]] >= DEEP_WATER
    calls, sure = [], 1.0
    for belief in beliefs:
        call = "shark" if belief["shark"] > 0.5 else "air"
        right = max(belief["shark"], 1 - belief["shark"])
        if calls and sure * right < (DEEP_SAFE if deep else SAFE):
            break
        calls.append(call)
        sure *= right
    for action in legal_actions:
        if action["calls"] == calls and not action.get("companion", False):
            return action
    return legal_actions[0]


def air(observation, legal_actions, beliefs):
    def worth(action):
        # token value i + 1 placed at level L: weigh it by the turtles expected at L
        return sum((i + 1) * beliefs[level - 1]["turtles"] for i, level in enumerate(action["token_levels"]))
    return max(legal_actions, key=worth)


def choose(observation, legal_actions, rng):
    beliefs = level_beliefs(observation)
    if observation["phase"] == "plan":
        return plan(observation, legal_actions, beliefs)
    return air(observation, legal_actions, beliefs)


if __name__ == "__main__":
    arena_bot.run(choose)
