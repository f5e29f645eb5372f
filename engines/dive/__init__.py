"""Dive: simultaneous secret dives through a stack of transparent ocean cards.

Rules (source of truth): /work/shared/rules/dive.md. 1..5 players (1 = solo against the
village chief), option ``companions``. Every decision is simultaneous: Decision A ``plan``
then Decision B ``air``, both secret; the engine resolves each round by itself.
"""

from __future__ import annotations

from types import MappingProxyType

from engines.core import Game, GameInfo
from engines.dive.bots import BOTS
from engines.dive.state import DiveState

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


GAME = Game(INFO, DiveState, BOTS)
