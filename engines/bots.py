"""Built-in bots shared by every game. A bot is ``(observation, legal_actions, rng) -> action``."""

from __future__ import annotations

import random


def random_bot(observation: dict, legal_actions: list, rng: random.Random) -> dict:
    """Uniformly random over the legal actions."""
    return legal_actions[rng.randrange(len(legal_actions))]
