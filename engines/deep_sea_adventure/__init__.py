"""Deep Sea Adventure (Oink Games): shared air, push-your-luck diving for hidden-value chips.

Rules: /work/shared/rules/deep_sea_adventure.md (copy in the repository: docs/rules/deep_sea_adventure.md).
2-6 seats, one diver each; 3 rounds; no options. Turn-based, with chance (dice, chip shuffles)
and hidden information (chip values; a seat sees only the values of its own secured chips).
"""

from __future__ import annotations

from engines.core import Game, GameFacts, GameInfo
from engines.deep_sea_adventure.bots import BOTS
from engines.deep_sea_adventure.state import FULL_AIR, NUM_ROUNDS, DeepSeaAdventureState

INFO = GameInfo(
    id="deep_sea_adventure",
    title="Deep Sea Adventure",
    min_players=2,
    max_players=6,
    simultaneous=False,
    chance=True,
    longest_game=("3 rounds; a round ends when the air (25) runs out or every diver is back, so no turn "
                  "limit is needed (rules 4.4). Random play: 37 decisions on average with 2 players "
                  "(at most 72 in 1,000 games), 100 with 6 (at most 133)."),
    version="4",
    default_options={},
    rules_file="docs/rules/deep_sea_adventure.md",
)

DeepSeaAdventureState.info = INFO


def legend() -> dict:
    """The public numbers the replay viewer's renderer draws from."""
    return {"rounds": NUM_ROUNDS, "full_air": FULL_AIR}


FACTS = GameFacts(
    summary=("Shared air, push-your-luck, hidden chip values: dive for treasure "
             "and make it back to the submarine before the air runs out."),
    viewer_script="arena/viewer/games/deep_sea_adventure.js",
    default_limits={"move_ms": 100, "bank_ms": 2000},
    legend=legend,
    # K 8, not 16: the rating-quality benchmark's best on its ladders (docs/benchmarks.md).
    k_factor=8.0,
    replay_dictionary=((6, 3), (10, 4)),
)

GAME = Game(INFO, DeepSeaAdventureState, BOTS, FACTS)

__all__ = ["GAME", "INFO", "DeepSeaAdventureState"]
