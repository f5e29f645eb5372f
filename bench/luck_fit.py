"""Fits V, the value function of luck accounting (workers/luck_values.py), and says how good it is.

Per game and seat count (``--only game:seats,...``; default: every seat count of the three games
with network features), in three steps on disjoint seeds:

1. **Hidden layer.** ``--train-games`` games are played by the built-in heuristic, each seat
   playing a uniformly random legal move instead with a probability drawn from ``STRENGTHS`` half
   of the time (so V also sees weaker play). Every seat's network features at every decision point
   are paired with its final score, and a one-hidden-layer network (``--hidden`` rectified units)
   is trained to predict it (squared error, Adam, numpy). Printed: its R^2 on the last tenth.
2. **Output layer.** A prediction of the final score is not what luck needs: luck is a sum over
   every chance event of V's jump against its expectation, so V's small errors add up along a
   game. What luck needs is that ``score - luck`` be as steady as possible. That is linear in the
   output weights: with each hidden unit's own "luck" (the same sum, V replaced by that unit),
   ``score - luck = score - terminal part - sum_j w_j luck_j``. So the output layer is the least
   squares fit of each seat's ``score - terminal part``, less its table's mean, on its units' luck
   (less the table's mean; seat dummies beside them take each seat's structural advantage, and a
   small ridge keeps it steady), on ``--fit-games`` games of heuristic copies. Any fixed V gives
   luck of mean 0, so fitting on other games than those measured keeps luck unbiased.
3. **Check.** On ``--test-games`` further games of heuristic copies (seeds 0, 1, ..., as
   ``bench/luck.py`` plays them): the share of the variance of the score difference between two
   seats that luck removes, with the trained output layer and with the fitted one.

``--write`` stores the network with the fitted output layer in ``workers/luck_weights.json``, with
the figures and the command; seat counts not refitted keep what the file has.

    .venv/bin/python bench/luck_fit.py --write                        # every network (about an hour)
    .venv/bin/python bench/luck_fit.py --only deep_sea_adventure:2 --processes 2
    .venv/bin/python bench/luck_fit.py --only deep_dive:2 --train-games 500 --fit-games 200 --test-games 100
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402
from workers.luck import MODELS, LuckModel, luck_by_step  # noqa: E402
from workers.luck_values import NETWORK_FEATURES, WEIGHTS_FILE, Network  # noqa: E402

SEATS = {"deep_sea_adventure": range(2, 7), "dive_diver_die": range(2, 6), "deep_dive": range(2, 5)}
STRENGTHS = (0.1, 0.25, 0.5)
TRAIN_SEED, FIT_SEED = 10_000_000, 20_000_000  # far from bench/luck.py's test seeds (0, 1, ...)
RIDGE = 1e-4  # of the output fit, relative to the mean diagonal of its normal matrix


def _bot(heuristic, chance: float):
    def bot(observation, legal_actions, rng):
        if chance and rng.random() < chance:
            return rng.choice(legal_actions)
        return heuristic(observation, legal_actions, rng)
    return bot


def play(game_id: str, seats: int, seed: int, mixed: bool, rows: bool):
    """One game of heuristic seats (each one weaker half of the time when ``mixed``): its network
    feature rows per decision point (when ``rows``), its actions and its scores."""
    game = get_game(game_id)
    rng = random.Random(seed)
    heuristic = game.bots["heuristic"]
    bots = [_bot(heuristic, rng.choice(STRENGTHS) if mixed and rng.random() < 0.5 else 0.0) for _ in range(seats)]
    seat_rngs = [random.Random(seed * 101 + seat) for seat in range(seats)]
    features = NETWORK_FEATURES[game_id]
    state = game.new_state(seats, seed=seed)
    seen, actions = [], []
    while not state.is_terminal():
        if rows:
            seen.append(features(state))
        joint = {seat: bots[seat](state.observation(seat), state.legal_actions(seat), seat_rngs[seat])
                 for seat in state.to_act()}
        actions.append(joint)
        state.apply(joint)
    return seen, actions, [float(score) for score in state.result()["scores"]]


def training_rows(task: tuple) -> tuple[list, list]:
    game_id, seats, seed = task
    seen, _, scores = play(game_id, seats, seed, mixed=True, rows=True)
    return [row[seat] for row in seen for seat in range(seats)], [scores[seat] for _ in seen for seat in range(seats)]


def train_hidden(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int = 12, seed: int = 0) -> dict:
    """A network spec trained to predict ``y`` from ``x`` (Adam on squared error, minibatches of 512,
    the step size decaying by 0.8 an epoch)."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    y_mean, y_scale = float(y.mean()), float(y.std()) or 1.0
    target = (y - y_mean) / y_scale
    width = x.shape[1]
    params = [rng.normal(0.0, np.sqrt(2.0 / width), (width, hidden)), np.zeros(hidden),
              rng.normal(0.0, np.sqrt(1.0 / hidden), hidden), np.zeros(1)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    rate, step = 2e-3, 0
    for _ in range(epochs):
        order = rng.permutation(len(z))
        for start in range(0, len(z), 512):
            batch = order[start:start + 512]
            xb, tb = z[batch], target[batch]
            pre = xb @ params[0] + params[1]
            units = np.maximum(pre, 0.0)
            error = (units @ params[2] + params[3][0] - tb) / len(batch)
            back = np.outer(error, params[2]) * (pre > 0)
            grads = [xb.T @ back + 1e-5 * params[0], back.sum(axis=0), units.T @ error + 1e-5 * params[2],
                     np.array([error.sum()])]
            step += 1
            for p, g, m, v in zip(params, grads, moments, squares):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        rate *= 0.8
    return {"mean": mean.tolist(), "scale": scale.tolist(), "hidden_weights": params[0].tolist(),
            "hidden_bias": params[1].tolist(), "output_weights": (params[2] * y_scale).tolist(),
            "output_bias": float(params[3][0] * y_scale + y_mean)}


_NETWORK: dict = {}  # the network being fitted, per worker process (set before the pool forks)


def _unit_value(game_id: str):
    """V as a vector per seat: ``[terminal score, hidden unit 1, .., hidden unit H, 1]`` (the score
    only at the end, the units only before), so luck comes out per unit (workers.luck adds and
    subtracts whatever V returns)."""
    network, features = _NETWORK[game_id], NETWORK_FEATURES[game_id]
    size = len(network.hidden_bias)

    def value(state):
        if state.is_terminal():
            return [np.concatenate(([score], np.zeros(size + 1))) for score in state.result()["scores"]]
        return [np.concatenate(([0.0], units, [1.0])) for units in network.hidden(features(state))]
    return value


def unit_luck(task: tuple) -> dict:
    """One game (heuristic copies, or weaker seats among them when ``mixed``) with every seat's
    luck per hidden unit."""
    game_id, seats, seed, mixed = task
    _, actions, scores = play(game_id, seats, seed, mixed=mixed, rows=False)
    base = MODELS[game_id]
    model = LuckModel(_unit_value(game_id), float_buckets=base.float_buckets, samples=base.samples,
                      enumerate_limit=base.enumerate_limit, setup=base.setup, reveals=base.reveals)
    luck = luck_by_step(game_id, seats, seed, None, actions, model=model)
    return {"scores": scores, "luck": np.array([np.asarray(seat, dtype=float) for seat in luck["total"]])}


def fit_output(games: list[dict]) -> np.ndarray:
    """Output weights (and bias) that make ``score - luck`` steadiest within a table (module docstring)."""
    seats = len(games[0]["scores"])
    targets, rows = [], []
    for game in games:
        luck = game["luck"]
        y = np.asarray(game["scores"]) - luck[:, 0]
        x = np.hstack([luck[:, 1:], np.eye(seats)])
        targets.append(y - y.mean())
        rows.append(x - x.mean(axis=0))
    y, x = np.concatenate(targets), np.vstack(rows)
    normal = x.T @ x
    normal += RIDGE * np.trace(normal) / len(normal) * np.eye(len(normal))
    return np.linalg.solve(normal, x.T @ y)[:-seats]


def removed(games: list[dict], weights: np.ndarray) -> tuple[float, float]:
    """``(var(d), var(d - luck))`` over every pair of seats, luck read with output ``weights``."""
    raw, adjusted = [], []
    for game in games:
        scores = np.asarray(game["scores"])
        play_ = scores - (game["luck"][:, 0] + game["luck"][:, 1:] @ weights)
        for a in range(len(scores)):
            for b in range(a + 1, len(scores)):
                raw.append(scores[a] - scores[b])
                adjusted.append(play_[a] - play_[b])
    return float(np.var(raw)), float(np.var(adjusted))


def fit_one(game_id: str, seats: int, args) -> tuple[dict, dict]:
    started = time.time()
    train = range(TRAIN_SEED + 1000 * seats, TRAIN_SEED + 1000 * seats + args.train_games)
    with Pool(args.processes) as pool:
        parts = pool.map(training_rows, [(game_id, seats, seed) for seed in train], chunksize=20)
    cut = len(parts) - max(1, len(parts) // 10)
    x = np.array([row for rows, _ in parts[:cut] for row in rows])
    y = np.array([score for _, scores in parts[:cut] for score in scores])
    held_x = np.array([row for rows, _ in parts[cut:] for row in rows])
    held_y = np.array([score for _, scores in parts[cut:] for score in scores])
    spec = train_hidden(x, y, args.hidden)
    network = Network(spec)
    r2 = 1.0 - float(np.mean((np.asarray(network(held_x)) - held_y) ** 2) / np.var(held_y))
    print(f"{game_id} {seats} seats: hidden layer of {args.hidden} from {len(y)} positions of {cut} games, "
          f"held-out R^2 {r2:.3f} ({time.time() - started:.0f} s)")
    sys.stdout.flush()
    _NETWORK[game_id] = network
    fit_seeds = range(FIT_SEED + 1000 * seats, FIT_SEED + 1000 * seats + args.fit_games)
    with Pool(args.processes) as pool:
        mixed = int(args.fit_mixed * len(fit_seeds))
        fitted = pool.map(unit_luck, [(game_id, seats, seed, number < mixed) for number, seed in enumerate(fit_seeds)],
                          chunksize=4)
        tested = pool.map(unit_luck, [(game_id, seats, seed, False) for seed in range(args.test_games)], chunksize=4)
    weights = fit_output(fitted)
    trained = np.concatenate((spec["output_weights"], [spec["output_bias"]]))
    raw, plain = removed(tested, trained)
    _, best = removed(tested, weights)
    print(f"  {args.test_games} test games of heuristic copies: var(d) {raw:.1f}; less luck {plain:.1f} with the "
          f"trained output ({1 - plain / raw:.0%} removed), {best:.1f} with the fitted one ({1 - best / raw:.0%}) "
          f"({time.time() - started:.0f} s)")
    sys.stdout.flush()
    spec = {**spec, "output_weights": weights[:-1].tolist(), "output_bias": float(weights[-1])}
    record = {"train_games": cut, "held_out_r2": round(r2, 4), "fit_games": args.fit_games, "fit_mixed": args.fit_mixed,
              "test_games": args.test_games, "test_var_d": round(raw, 2),
              "test_removed_trained_output": round(1 - plain / raw, 4), "test_removed": round(1 - best / raw, 4)}
    return spec, record


def _rounded(spec: dict) -> dict:
    def r(value):
        if isinstance(value, list):
            return [r(item) for item in value]
        return float(f"{value:.6g}")
    return {key: r(value) for key, value in spec.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated GAME:SEATS (default: all with network features)")
    parser.add_argument("--train-games", type=int, default=3000)
    parser.add_argument("--fit-games", type=int, default=800)
    parser.add_argument("--test-games", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--fit-mixed", type=float, default=0.0,
                        help="share of the output fit's games with weaker seats among the heuristic copies")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"store the networks in {WEIGHTS_FILE.name}")
    args = parser.parse_args()
    if args.only:
        chosen = [(game, int(seats)) for game, seats in (item.split(":") for item in args.only.split(","))]
    else:
        chosen = [(game, seats) for game, counts in SEATS.items() for seats in counts]
    for game, _ in chosen:
        if game not in NETWORK_FEATURES:
            parser.error(f"{game} has no network features (workers/luck_values.py NETWORK_FEATURES)")
    stored = json.loads(WEIGHTS_FILE.read_text()) if WEIGHTS_FILE.exists() else {}
    for game_id, seats in chosen:
        spec, record = fit_one(game_id, seats, args)
        if args.write:
            stored.setdefault("networks", {}).setdefault(game_id, {})[str(seats)] = _rounded(spec)
            stored.setdefault("network_fit", {}).setdefault(game_id, {})[str(seats)] = {
                **record, "command": "bench/luck_fit.py " + " ".join(sys.argv[1:])}
            WEIGHTS_FILE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
            print(f"  wrote {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
