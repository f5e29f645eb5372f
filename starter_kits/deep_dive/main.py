"""Deep Dive starter bot: stay while the shark risk is worth it, leave with a good haul.

Run it locally against the built-in random bot:

    python -m workers.play deep_dive starter_kits/deep_dive/main.py builtin:random

How it decides (rules: docs/rules/deep_dive.md):
- The only decision: after each shark roll every diver still in the water chooses
  {"type": "stay"} or {"type": "leave"} (simultaneously; you never see the others' choice).
- observation["seat"] is me; observation["players"][seat]["closed_shells"] is what I would
  lose to the shark (1 section in 6) and open (white pearls score) by leaving now.
- observation["black_pile"] reaching 4 ends the game; observation["supply_size"] running
  out ends it too, and closed shells then still count.
Staying one more cycle risks c closed shells for about 2 more: worth it while (5/6)(c+2) > c,
that is while c < 10; leaving a little earlier banks pearls before the game ends.
Improve it: count the remaining white share in observation["unopened"], play for the lead late...
"""

import arena_bot

LEAVE_AT = 8          # closed shells to bank (tried 5-9 against random: 8 won most)


def choose(observation, legal_actions, rng):
    stay = next(a for a in legal_actions if a["type"] == "stay")
    leave = next(a for a in legal_actions if a["type"] == "leave")
    closed = observation["players"][observation["seat"]]["closed_shells"]
    if observation["supply_size"] <= 1:
        return stay          # the supply runs out next step: shells count without the shark
    return leave if closed >= LEAVE_AT else stay


if __name__ == "__main__":
    arena_bot.run(choose)
