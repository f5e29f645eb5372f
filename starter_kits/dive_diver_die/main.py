"""Dive! Diver! Die! starter bot: shallow, short, safe dives; a simple base for your ideas.

Run it locally against the built-in random bot (and the built-in heuristic, which plays otherwise):

    python -m workers.play dive_diver_die starter_kits/dive_diver_die/main.py builtin:random

The decisions (rules: docs/rules/dive_diver_die.md), by observation["decision"]:
- "prepare": secretly choose an oxygen and a duration card ({"type": "prepare", "oxygen", "duration"});
- "choose_depth": {"type": "choose_depth", "depth": d};
- "event_window": play an event card ({"type": "play_event", "card", ...}) or {"type": "end_window"};
- "choose_duration": {"type": "choose_duration", "turns": t};
- "choose_bonus": {"type": "choose_bonus", "bonus": b}.
How this bot decides: it spends its lowest card on oxygen and its highest on duration, always
dives to DEPTH, searches at most TURNS turns, takes gold as its bonus and plays only the events
that help itself for free ("bonus_happy"). The built-in heuristic (engines/dive_diver_die/bots.py)
plans for the Jewel of Zakarra, sizes its searches to the shared oxygen and plays events against
the leaders: read it for ideas. The sandbox mounts the read-only ``engines`` package, so a bot may
also simulate with the engines.
"""

import arena_bot

DEPTH = 4   # deeper pays more gold per search but costs every diver more oxygen on the way
TURNS = 3   # searches per dive (tried 1-9 at depths 1-4 against random: 4 and 3 won most)


def choose(observation, legal_actions, rng):
    decision = observation["decision"]
    wanted = None
    if decision == "prepare":
        hand = sorted(observation["you"]["hand"])
        wanted = {"type": "prepare", "oxygen": hand[0], "duration": hand[-1]}
    elif decision == "choose_depth":
        wanted = {"type": "choose_depth", "depth": DEPTH}
    elif decision == "choose_duration":
        value = observation["players"][observation["seat"]]["max_card"]
        wanted = {"type": "choose_duration", "turns": max(1, min(value, TURNS))}
    elif decision == "choose_bonus":
        wanted = {"type": "choose_bonus", "bonus": "gold"}
    else:
        wanted = next((a for a in legal_actions if a.get("card") == "bonus_happy"), {"type": "end_window"})
    return wanted if wanted in legal_actions else legal_actions[-1]


if __name__ == "__main__":
    arena_bot.run(choose)
