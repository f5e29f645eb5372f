"""Fits V, the value function of luck accounting (workers/luck_values.py), and says how good it is.

For every game with features and every seat count, ``--games`` games are played by the built-in
heuristic, each seat playing a uniformly random legal move instead with a probability drawn from
0, 0.25 and 0.5 (so V sees stronger and weaker play). At every decision point, and at the start,
each seat's features are paired with that seat's final score; the weights are the least-squares
fit (a tiny ridge, 1e-6, keeps it solvable). Seeds from ``--first-seed`` on; the fit is checked on
``--games // 4`` further games: printed is the share of the final score's variance that V
explains at those positions (R^2), beside the running score's own.

    .venv/bin/python bench/luck_fit.py --write            # refit all and write workers/luck_weights.json
    .venv/bin/python bench/luck_fit.py --games 100 --only deep_dive
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402
from workers.luck_values import FEATURES, WEIGHTS_FILE  # noqa: E402

SEATS = {"deep_sea_adventure": range(2, 7), "dive_diver_die": range(2, 6), "deep_dive": range(2, 5)}
STRENGTHS = (0.0, 0.25, 0.5)


def _bot(heuristic, chance: float):
    def bot(observation, legal_actions, rng):
        if chance and rng.random() < chance:
            return rng.choice(legal_actions)
        return heuristic(observation, legal_actions, rng)
    return bot


def positions(game_id: str, seats: int, seed: int) -> list[tuple[list[float], float]]:
    """``(features, final score)`` of every seat at every decision point of one game."""
    game = get_game(game_id)
    rng = random.Random(seed)
    bots = [_bot(game.bots["heuristic"], rng.choice(STRENGTHS)) for _ in range(seats)]
    features = FEATURES[game_id]
    state = game.new_state(seats, seed=seed)
    rows = []
    while not state.is_terminal():
        rows.append(features(state))
        state.apply({seat: bots[seat](state.observation(seat), state.legal_actions(seat), rng)
                     for seat in state.to_act()})
    scores = state.result()["scores"]
    return [(row[seat], float(scores[seat])) for row in rows for seat in range(seats)]


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    size = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for r in range(size):
            if r != col and a[r][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col])]
    return [a[i][size] / a[i][i] if abs(a[i][i]) >= 1e-12 else 0.0 for i in range(size)]


def fit(data: list[tuple[list[float], float]]) -> list[float]:
    width = len(data[0][0])
    xtx = [[0.0] * width for _ in range(width)]
    xty = [0.0] * width
    for row, target in data:
        for i, fi in enumerate(row):
            if fi:
                xty[i] += fi * target
                line = xtx[i]
                for j, fj in enumerate(row):
                    line[j] += fi * fj
    scale = max(1.0, max(xtx[i][i] for i in range(width)))
    for i in range(width):
        xtx[i][i] += 1e-6 * scale
    return _solve(xtx, xty)


def r_squared(data, predict) -> float:
    mean = sum(target for _, target in data) / len(data)
    total = sum((target - mean) ** 2 for _, target in data)
    residual = sum((target - predict(row)) ** 2 for row, target in data)
    return 1.0 - residual / total if total else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="training games per game and seat count")
    parser.add_argument("--first-seed", type=int, default=1_000_000)
    parser.add_argument("--only", default="", help="comma-separated game ids (default: all with features)")
    parser.add_argument("--write", action="store_true", help=f"write the weights to {WEIGHTS_FILE.name}")
    args = parser.parse_args()
    chosen = [g for g in SEATS if not args.only or g in args.only.split(",")]
    try:
        stored = json.loads(WEIGHTS_FILE.read_text())
    except FileNotFoundError:
        stored = {"weights": {}, "fit": {}}
    for game_id in chosen:
        for seats in SEATS[game_id]:
            first = args.first_seed + 1000 * seats
            train = [row for seed in range(first, first + args.games) for row in positions(game_id, seats, seed)]
            test_first = first + args.games
            test = [row for seed in range(test_first, test_first + max(1, args.games // 4))
                    for row in positions(game_id, seats, seed)]
            weights = fit(train)
            fitted = r_squared(test, lambda row: sum(w * f for w, f in zip(weights, row)))
            running = r_squared(test, lambda row: row[0])
            print(f"{game_id} {seats} seats: {len(train)} positions from {args.games} games; held-out R^2 "
                  f"of V {fitted:.3f} (running score alone {running:.3f})")
            sys.stdout.flush()
            stored["weights"].setdefault(game_id, {})[str(seats)] = [round(w, 6) for w in weights]
            stored["fit"].setdefault(game_id, {})[str(seats)] = {
                "games": args.games, "first_seed": first, "held_out_r2": round(fitted, 4),
                "running_score_r2": round(running, 4)}
    if args.write:
        stored["command"] = "bench/luck_fit.py " + " ".join(sys.argv[1:])
        WEIGHTS_FILE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"wrote {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
