"""Deep Dive (game id ``deep_dive``): colour dice, a shark die and closed shells.

Rules: /work/shared/rules/deep_dive.md, copied in the repository as docs/rules/deep_dive.md
(the source of truth; section numbers and decisions D1..D12 quoted here refer to it).
The engine the platform plays lives in :mod:`engines.deep_dive.state` (a tuned hot loop), the
built-in bots in :mod:`engines.deep_dive.bots`; :mod:`engines.deep_dive.reference` is the same game
written readably from the rules file, and the fast engine is tested against it step by step
(tests/engines/test_deep_dive_reference.py).
"""

from __future__ import annotations

from engines.core import Game, GameFacts, GameInfo
from engines.deep_dive.bots import BOTS
from engines.deep_dive.state import BLACK_PEARLS_TO_END, ROUND_LIMIT, DeepDiveState

INFO = GameInfo(
    id="deep_dive",
    title="Deep Dive",
    min_players=2,
    max_players=4,
    simultaneous=True,
    chance=True,
    longest_game=(f"{ROUND_LIMIT} rounds (safety limit, D11); with the built-in bots 2-12 rounds "
                  "and at most about 50 decisions"),
    version="3",
    default_options={},
    rules_file="docs/rules/deep_dive.md",
)


def legend() -> dict:
    """The public numbers the replay viewer's renderer draws from."""
    return {"round_limit": ROUND_LIMIT, "black_pearls_to_end": BLACK_PEARLS_TO_END}


FACTS = GameFacts(
    summary=("Colour dice, a shark die and closed shells: dive deeper for better pearls "
             "while the shark circles."),
    viewer_script="arena/viewer/games/deep_dive.js",
    default_limits={"move_ms": 100, "bank_ms": 2000},
    legend=legend,
    replay_dictionary=((5, 3), (11, 2)),
)

GAME = Game(INFO, DeepDiveState, BOTS, FACTS)

__all__ = ["GAME", "INFO", "DeepDiveState", "BOTS"]
