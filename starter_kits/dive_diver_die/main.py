"""Dive! Diver! Die! starter bot: the game's own heuristic, with room for your ideas.

Run it locally against the built-in random bot:

    python -m workers.play dive_diver_die starter_kits/dive_diver_die/main.py builtin:random

The decisions (rules: docs/rules/dive_diver_die.md), by observation["decision"]:
- "prepare": secretly choose an oxygen and a duration card ({"type": "prepare", "oxygen", "duration"});
- "choose_depth": {"type": "choose_depth", "depth": d};
- "event_window": play an event card ({"type": "play_event", "card", ...}) or {"type": "end_window"};
- "choose_duration": {"type": "choose_duration", "turns": t};
- "choose_bonus": {"type": "choose_bonus", "bonus": b}.
The bot sandbox mounts the read-only ``engines`` package, so a bot may reuse (and simulate
with) the engines. This one plays the built-in heuristic (engines/dive_diver_die/bots.py):
start from here and replace its decisions one by one with your own.
"""

import arena_bot
from engines.dive_diver_die.bots import heuristic_bot


def choose(observation, legal_actions, rng):
    return heuristic_bot(observation, legal_actions, rng)


if __name__ == "__main__":
    arena_bot.run(choose)
