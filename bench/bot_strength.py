"""Bot strength: how often a built-in bot wins against others over seeded games.

The bot under test takes every seat in turn (seat = game index mod players); the other
seats are played by the opponent bot. A win is rank 1 (shared wins count as wins).
Solo games (1 player) report the mean score and how many games ranked 1 (for Dive: beat
the village chief).

    .venv/bin/python bench/bot_strength.py GAME --bot heuristic --against random \
        --players 4 --games 500
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402


def play(game, bots, num_players: int, seed: int, options=None) -> dict:
    state = game.new_state(num_players=num_players, seed=seed, options=options)
    rngs = [random.Random(seed * 100 + seat) for seat in range(num_players)]
    while not state.is_terminal():
        state.apply({
            seat: bots[seat](state.observation(seat), state.legal_actions(seat), rngs[seat])
            for seat in state.to_act()
        })
    return state.result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--against", default="random")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--options", default=None, help="JSON options")
    args = parser.parse_args()
    import json

    options = json.loads(args.options) if args.options else None
    game = get_game(args.game)
    tested, opponent = game.bots[args.bot], game.bots[args.against]
    wins = 0
    tested_scores = []
    for seed in range(args.games):
        seat = seed % args.players
        bots = [opponent] * args.players
        bots[seat] = tested
        result = play(game, bots, args.players, seed, options)
        wins += result["ranks"][seat] == 1
        tested_scores.append(result["scores"][seat])
    mean = statistics.fmean(tested_scores)
    if args.players == 1:
        # Solo results with a rank 2 (Dive against the village chief) are wins and losses.
        print(f"{args.game} solo: {args.bot} mean score {mean:.2f} over {args.games} games; "
              f"rank 1 in {wins}/{args.games}")
    else:
        print(f"{args.game} {args.players}p: {args.bot} wins {wins}/{args.games} "
              f"({100 * wins / args.games:.1f}%) against {args.against}; "
              f"fair share {100 / args.players:.1f}%; mean score {mean:.2f}")


if __name__ == "__main__":
    main()
