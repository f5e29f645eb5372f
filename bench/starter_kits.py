"""A game's starter kit against its built-in heuristic and random, in process (no sandbox), 2 seats.

    .venv/bin/python bench/starter_kits.py GAME [PAIRS]

Prints, for each opponent, the starter kit's score (win = 1, tie = 1/2) over PAIRS seeds played in
both seat orders, its mean score difference with a 95 % interval, and how many of the heuristic's
decisions in 20 games the starter kit would have taken otherwise: the two must differ in play, or
the ladder cannot tell them apart (issue 25: Dive's and Dive! Diver! Die!'s kits once called the heuristic).
"""

import importlib.util
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "workers" / "sdk")]

from engines import get_game  # noqa: E402


def starter_kit(game_id: str):
    spec = importlib.util.spec_from_file_location("starter_kit", ROOT / "starter_kits" / game_id / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.choose


def play(game, bots, seed: int) -> list:
    state, rng = game.new_state(num_players=len(bots), seed=seed), random.Random(seed)
    while not state.is_terminal():
        state.apply({s: bots[s](state.observation(s), state.legal_actions(s), rng) for s in state.to_act()})
    return state.result()["scores"]


def main(game_id: str, pairs: int) -> None:
    game, kit = get_game(game_id), starter_kit(game_id)
    heuristic_bot = game.bots["heuristic"]
    for name, other in (("heuristic", heuristic_bot), ("random", game.bots["random"])):
        points, diffs = 0.0, []
        for seed in range(pairs):
            for first in (True, False):
                scores = play(game, [kit, other] if first else [other, kit], seed)
                mine, theirs = (scores[0], scores[1]) if first else (scores[1], scores[0])
                diffs.append(mine - theirs)
                points += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        mean = sum(diffs) / len(diffs)
        sd = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)) ** 0.5
        print(f"starter kit vs {name}: {len(diffs)} games, score {points / len(diffs):.3f}, "
              f"mean score difference {mean:+.2f} ± {1.96 * sd / len(diffs) ** 0.5:.2f} (95 %)")
    differ = total = 0
    rng = random.Random(1)
    for seed in range(20):
        state = game.new_state(num_players=2, seed=seed)
        while not state.is_terminal():
            actions = {}
            for s in state.to_act():
                observation, legal = state.observation(s), state.legal_actions(s)
                actions[s] = heuristic_bot(observation, legal, rng)
                differ += kit(observation, legal, rng) != actions[s]
                total += 1
            state.apply(actions)
    print(f"heuristic's decisions the starter kit takes otherwise (20 games): {differ}/{total}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: bench/starter_kits.py GAME [PAIRS]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100)
