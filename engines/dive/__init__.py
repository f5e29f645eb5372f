"""Dive: simultaneous secret dives through a stack of transparent ocean cards.

Rules (source of truth): /work/shared/rules/dive.md. 1..5 players (1 = solo against the
village chief), option ``companions``. Every decision is simultaneous: Decision A ``plan``
then Decision B ``air``, both secret; the engine resolves each round by itself.
"""

from __future__ import annotations

from types import MappingProxyType

from engines.core import Game, GameFacts, GameInfo
from engines.dive import cards
from engines.dive.bots import BOTS
from engines.dive.state import DEEP_WATER, LEVELS, MAX_ROUNDS, STONE, DiveState

INFO = GameInfo(
    id="dive",
    title="Dive",
    min_players=1,
    max_players=5,
    simultaneous=True,
    chance=True,
    longest_game="30 rounds = 60 decisions (each a simultaneous plan or air placement)",
    version="4",
    default_options=MappingProxyType({"companions": False}),
    rules_file="docs/rules/dive.md",
)
DiveState.info = INFO


def legend() -> dict:
    """The public board numbers and ocean cards the replay viewer's renderer draws from:
    ``cards[id] = {"haze", "creatures": [[cell, species], ...] for each orientation 0..3}``."""
    return {
        "stone": STONE, "deep_water": DEEP_WATER, "levels": LEVELS, "max_rounds": MAX_ROUNDS,
        "cards": [{"haze": cards.HAZE[card],
                   "creatures": [[list(pair) for pair in cards.ROTATED[card][k]] for k in range(4)]}
                  for card in range(cards.NUM_CARDS)],
    }


FACTS = GameFacts(
    summary="Simultaneous secret placement; perception through stacked transparent cards.",
    viewer_script="arena/viewer/games/dive.js",
    # More per move than the others: every seat thinks at once.
    default_limits={"move_ms": 200, "bank_ms": 3000},
    legend=legend,
    replay_dictionary=((0, 1), (3, 3), (9, 2)),
)

GAME = Game(INFO, DiveState, BOTS, FACTS)
