"""Built-in Deep Dive bots: ``random`` and ``heuristic`` (observation and legal actions only)."""

from __future__ import annotations

import random

from engines.bots import random_bot

# Staying one more cycle risks the closed shells c (the shark hits one section in six)
# for about 2 more shells: (5/6)(c + 2) > c while c < 10. Banking at 8 did best against
# random over 300 seeded games per player count (thresholds 3..10 tried).
BANK_AT = 8
# "Late": one more black pearl ends the game, or the supply is nearly gone. A final
# surfacing scores closed shells, so a diver who is behind then keeps diving to catch up.
LATE_BLACK_PILE = 3
LATE_SUPPLY = 20


def heuristic_bot(observation: dict, legal_actions: list, rng: random.Random) -> dict:
    """Stays while staying is free or worth the shark risk, leaves once enough shells are closed."""
    stay, leave = legal_actions[0], legal_actions[1]
    seat = observation["seat"]
    players = observation["players"]
    closed = players[seat]["closed_shells"]
    # A diver who stays takes at least one shell: with at most one left, the supply runs
    # out in the next dive step, the game ends at C2 before the shark, and closed shells score.
    if observation["supply_size"] <= 1:
        return stay
    if observation["black_pile"] >= LATE_BLACK_PILE or observation["supply_size"] < LATE_SUPPLY:
        # Expected totals from public counts only: a closed shell is white with the share of
        # whites among all unopened tokens (nobody, owner included, knows more).
        unopened = observation["unopened"]
        total = unopened["white"] + unopened["black"] + unopened["empty"]
        white_share = unopened["white"] / total if total else 0.0
        mine = players[seat]["white_pearls"] + closed * white_share
        best_other = max(player["white_pearls"] + player["closed_shells"] * white_share
                         for other, player in enumerate(players) if other != seat)
        if mine < best_other:
            return stay
    if closed >= BANK_AT:
        return leave
    return stay


BOTS = {"random": random_bot, "heuristic": heuristic_bot}
