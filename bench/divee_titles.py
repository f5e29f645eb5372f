"""Divee! solo titles: how often each built-in bot earns each title over seeded solo games.

Plays the same seeds as bench/bot_strength.py (seed = game index) and prints, per bot, the
mean score and the count of each title (section 6.3 of the rules file).

    .venv/bin/python bench/divee_titles.py [--games 500] [--bots heuristic random] [--options JSON]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bot_strength import play  # noqa: E402
from engines import get_game  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--bots", nargs="+", default=["heuristic", "random"])
    parser.add_argument("--options", default=None, help="JSON options")
    args = parser.parse_args()
    options = json.loads(args.options) if args.options else None
    game = get_game("divee")
    for name in args.bots:
        results = [play(game, [game.bots[name]], 1, seed, options) for seed in range(args.games)]
        titles = Counter((r["tier"], r["title"]) for r in results)
        mean = statistics.fmean(r["scores"][0] for r in results)
        listed = ", ".join(f"{title} {count}" for (_, title), count in sorted(titles.items()))
        print(f"divee solo {name}: mean score {mean:.2f} over {args.games} games; titles: {listed}")


if __name__ == "__main__":
    main()
