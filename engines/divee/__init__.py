"""Divee! (`divee`): rules in /work/shared/rules/divee.md (copy: docs/rules/divee.md; decisions D1-D14).

Five dice, up to three rolls a turn, six combination cards per seat, one card used per turn
over 6 rounds; a first-roll Divee wins at once; with one player the result carries a solo
title. Option ``special_tiles`` adds the One More Roll and Flip Over tiles.
"""

from __future__ import annotations

from types import MappingProxyType

from engines.core import Game, GameFacts, GameInfo
from engines.divee import cards
from engines.divee.bots import BOTS
from engines.divee.state import REROLLS, ROUNDS, DiveeState

INFO = GameInfo(
    id="divee",
    title="Divee!",
    min_players=1,
    max_players=6,
    simultaneous=False,
    chance=True,
    longest_game=("6 rounds x 6 seats = 36 turns; at most 3 roll decisions a turn, plus one "
                  "One More Roll and one Flip Over per seat per game: at most 120 decisions"),
    version="3",
    default_options=MappingProxyType({"special_tiles": False}),
    rules_file="docs/rules/divee.md",
)


def legend() -> dict:
    """The public numbers and cards the replay viewer's renderer draws from."""
    return {"rounds": ROUNDS, "rerolls": REROLLS, "cards": list(cards.CARDS),
            "base_points": dict(zip(cards.CARDS, cards.BASE_POINTS))}


FACTS = GameFacts(
    summary=("Dice combinations with re-rolls: claim the best combination card each round; "
             "a solo mode awards titles."),
    viewer_script="arena/viewer/games/divee.js",
    default_limits={"move_ms": 100, "bank_ms": 2000},
    legend=legend,
    replay_dictionary=((1, 1), (4, 3), (8, 2)),
)

GAME = Game(INFO, DiveeState, BOTS, FACTS)
