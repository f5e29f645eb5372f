"""Dive! Diver! Die! (game id ``dive_diver_die``): hidden oxygen and duration cards, event cards
and the Jewel of Zakarra.

Rules: /work/shared/rules/dive_diver_die.md (the source of truth; sections, steps P1..P6 and
E1..E6 and decisions D1..D29 quoted in this package refer to it). The engine lives in
:mod:`engines.dive_diver_die.state`, the built-in bots in :mod:`engines.dive_diver_die.bots`.
"""

from __future__ import annotations

from types import MappingProxyType

from engines.core import Game, GameFacts, GameInfo
from engines.dive_diver_die.bots import BOTS
from engines.dive_diver_die.rules import DIVES, EVENT_ORDER, GOLD_BONUS, GOLD_PER_SEARCH, JEWEL_VALUE
from engines.dive_diver_die.state import DiveDiverDieState

INFO = GameInfo(
    id="dive_diver_die",
    title="Dive! Diver! Die!",
    min_players=2,
    max_players=5,
    simultaneous=True,
    chance=True,
    # Random play averages 35 (2 players) to 77 (5 players) decisions; bots that keep
    # playable cards get a window at every turn slot, hence the rules' estimate.
    longest_game="exactly 4 dives; up to about 100 (2 players) to 400 (5 players) decisions (rules §4.5)",
    version="3",
    default_options=MappingProxyType({"jewel": True}),
    rules_file="docs/rules/dive_diver_die.md",
)


def legend() -> dict:
    """The public tables the replay viewer's renderer draws from."""
    return {"dives": DIVES, "gold_per_search": list(GOLD_PER_SEARCH), "gold_bonus": list(GOLD_BONUS),
            "event_cards": list(EVENT_ORDER), "jewel_value": JEWEL_VALUE}


FACTS = GameFacts(
    summary="Hidden oxygen and duration cards, event cards and the Jewel of Zakarra.",
    viewer_script="arena/viewer/games/dive_diver_die.js",
    default_limits={"move_ms": 100, "bank_ms": 2000},
    legend=legend,
    replay_dictionary=((2, 4), (7, 3)),
)

GAME = Game(INFO, DiveDiverDieState, BOTS, FACTS)

__all__ = ["GAME", "INFO", "DiveDiverDieState", "BOTS"]
