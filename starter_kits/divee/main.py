"""Divee! starter bot: claim the best-paying card, or re-roll towards a set of equal dice.

Run it locally against the built-in random bot:

    python -m workers.play divee starter_kits/divee/main.py builtin:random

How it decides (rules: docs/rules/divee.md):
- Actions: {"type": "claim", "card": NAME} scores the card with the current dice;
  {"type": "reroll", "keep": [values...]} re-rolls every die not kept (two re-rolls a turn);
  with the special tiles option also {"type": "one_more_roll", "keep": [...]} and {"type": "flip", "value": v}.
- observation["dice"] are my five dice (sorted), observation["rerolls_used"] how many re-rolls I used,
  observation["claim_preview"][card] the points each card would score right now (0 = not completed).
Improve it: weigh a card's points against what the card is worth later in the game
(the built-in heuristic computes exact expectations: engines/divee/bots.py).
"""

from collections import Counter

import arena_bot

GOOD_ENOUGH = 12      # claim at once when a card pays at least this much


def choose(observation, legal_actions, rng):
    preview = observation["claim_preview"]
    claims = [a for a in legal_actions if a["type"] == "claim"]
    rerolls = [a for a in legal_actions if a["type"] == "reroll"]
    best = max(claims, key=lambda a: preview.get(a["card"], 0), default=None)
    if best is not None and (preview.get(best["card"], 0) >= GOOD_ENOUGH or not rerolls):
        return best
    if rerolls:
        # Keep every die showing the most common value (the higher value on a tie), re-roll the rest.
        value, count = max(Counter(observation["dice"]).items(), key=lambda vc: (vc[1], vc[0]))
        wanted = [value] * count
        return next((a for a in rerolls if list(a["keep"]) == wanted), max(rerolls, key=lambda a: len(a["keep"])))
    if best is not None:
        return best
    return legal_actions[0]


if __name__ == "__main__":
    arena_bot.run(choose)
