"""Dive starter bot: the game's own heuristic, with room for your ideas.

Run it locally against the built-in random bot:

    python -m workers.play dive starter_kits/dive/main.py builtin:random

The decisions (rules: docs/rules/dive.md), by observation["phase"], made by every seat at once:
- "plan": a secret list of calls, e.g. {"type": "plan", "calls": ["air", "shark"]}: what you
  expect to see, level by level, through the stacked transparent cards of observation["ocean_view"];
- "air": which air tokens to give up ({"type": "air", "token_levels": [...]}).
observation["positions"] are the divers' depths, observation["carried_levels"] my load.
The sandbox mounts the read-only ``engines`` package: ``engines.dive.bots.level_beliefs``
turns the ocean view into per-level probabilities. This bot plays the built-in heuristic;
replace it piece by piece with your own reasoning.
"""

import arena_bot
from engines.dive.bots import heuristic_bot


def choose(observation, legal_actions, rng):
    return heuristic_bot(observation, legal_actions, rng)


if __name__ == "__main__":
    arena_bot.run(choose)
