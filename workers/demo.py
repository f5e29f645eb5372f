"""Plays one demo match of every registered game between built-in bots and prints the results.

    python -m workers.demo [--seed N]

Built-in bots are the project's own trusted code, so they play in-process here.
"""

from __future__ import annotations

import argparse
import random

from engines import list_games


def play_demo_match(game, seed: int) -> tuple[list[str], dict, int]:
    """One match of ``game``: the heuristic bot in seat 0, the others random."""
    num_players = max(game.min_players, min(4, game.max_players))
    names = ["heuristic"] + ["random"] * (num_players - 1)
    bots = [game.bots[name] for name in names]
    rngs = [random.Random(seed * 1000 + seat) for seat in range(num_players)]
    state = game.new_state(num_players=num_players, seed=seed)
    decisions = 0
    while not state.is_terminal():
        state.apply({
            seat: bots[seat](state.observation(seat), state.legal_actions(seat), rngs[seat])
            for seat in state.to_act()
        })
        decisions += 1
    return names, state.result(), decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game in list_games():
        names, result, decisions = play_demo_match(game, args.seed)
        print(f"{game.title} ({game.id}), seed {args.seed}, {decisions} decisions")
        for seat, name in enumerate(names):
            print(f"  seat {seat} builtin:{name:<10} score {result['scores'][seat]!s:>6}  "
                  f"rank {result['ranks'][seat]}")


if __name__ == "__main__":
    main()
