"""Luck accounting (workers.luck): how much noise it removes, whether it is centred, what it costs.

Two copies of each game's built-in heuristic (every seat the heuristic, each seat its own bot
randomness) play ``--games-per`` games on seeds 0, 1, ...; for every game the luck of every seat
is computed (``luck_by_step``). Printed per configuration:

- ``var(d)``, ``var(d - luck)``: the variance of the score difference ``d`` between seat 0 and seat 1
  (every pair of seats, averaged, with more seats), raw and luck-adjusted, and the share of it luck
  removes (goal: at least half), with a bootstrap 95 % interval of that share;
- the mean luck of every seat with its 95 % interval (goal: 0 for every seat);
- with ``--unequal``: seat 0 plays the heuristic and every other seat a weaker bot (the heuristic
  playing a random legal move with probability 0.5); the mean gap ``score_0 - mean(others)`` raw
  and luck-adjusted, each with its 95 % interval (goal: the same gap);
- CPU seconds of one game's luck (mean and max; goal: at most 1 s), with the machine's load.

    .venv/bin/python bench/luck.py                                   # the four goal configurations
    .venv/bin/python bench/luck.py --configs deep_dive:2 --games-per 200 --unequal
    .venv/bin/python bench/luck.py --configs divee:4,dive:4 --games-per 10
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402
from workers.luck import luck_by_step  # noqa: E402

CONFIGS = ("deep_sea_adventure:2", "deep_sea_adventure:4", "dive_diver_die:4", "deep_dive:2")


def _weak(heuristic, chance: float):
    def bot(observation, legal_actions, rng):
        if rng.random() < chance:
            return rng.choice(legal_actions)
        return heuristic(observation, legal_actions, rng)
    return bot


def play_one(task: tuple) -> dict:
    """One game of ``task = (game_id, seats, seed, unequal)``: its scores, luck and luck's CPU time."""
    game_id, seats, seed, unequal = task
    game = get_game(game_id)
    heuristic = game.bots["heuristic"]
    bots = [heuristic] + [_weak(heuristic, 0.5) if unequal else heuristic] * (seats - 1)
    rngs = [random.Random(seed * 101 + seat) for seat in range(seats)]
    state = game.new_state(seats, seed=seed)
    actions = []
    while not state.is_terminal():
        joint = {seat: bots[seat](state.observation(seat), state.legal_actions(seat), rngs[seat])
                 for seat in state.to_act()}
        actions.append(joint)
        state.apply(joint)
    scores = state.result()["scores"]
    started = time.process_time()
    luck = luck_by_step(game_id, seats, seed, None, actions)
    cpu = time.process_time() - started
    return {"scores": scores, "luck": luck["total"], "cpu": cpu, "evaluations": luck["evaluations"]}


def _interval(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, half


def _pair_diffs(games: list[dict], adjusted: bool) -> list[float]:
    diffs = []
    for game in games:
        values = [s - (lk if adjusted else 0.0) for s, lk in zip(game["scores"], game["luck"])]
        diffs.extend(values[a] - values[b] for a in range(len(values)) for b in range(a + 1, len(values)))
    return diffs


def _removed_share(games: list[dict]) -> float:
    raw = statistics.pvariance(_pair_diffs(games, False))
    adjusted = statistics.pvariance(_pair_diffs(games, True))
    return 1.0 - adjusted / raw if raw else 0.0


def report(config: str, games: list[dict], unequal: bool) -> None:
    seats = len(games[0]["scores"])
    raw = statistics.pvariance(_pair_diffs(games, False))
    adjusted = statistics.pvariance(_pair_diffs(games, True))
    rng = random.Random(0)
    shares = sorted(_removed_share([rng.choice(games) for _ in games]) for _ in range(200))
    cpu = [game["cpu"] for game in games]
    load = os.getloadavg()[0]
    print(f"{config}: {len(games)} games, heuristic x{seats}{' vs weaker' if unequal else ''}")
    if not raw:
        print("  var(d) = 0: every game gave the seats the same score difference (nothing for luck to remove)")
    else:
        print(f"  var(d) = {raw:.1f}, var(d - luck) = {adjusted:.1f}: luck removes {1 - adjusted / raw:.0%} "
              f"(bootstrap 95 % {shares[5]:.0%} .. {shares[194]:.0%})")
    means = [_interval([game["luck"][seat] for game in games]) for seat in range(seats)]
    print("  mean luck per seat: " + ", ".join(f"{m:+.2f} ± {h:.2f}" for m, h in means))
    if unequal:
        raw_gap = [g["scores"][0] - statistics.fmean(g["scores"][1:]) for g in games]
        adj = [[s - lk for s, lk in zip(g["scores"], g["luck"])] for g in games]
        adj_gap = [a[0] - statistics.fmean(a[1:]) for a in adj]
        (rm, rh), (am, ah) = _interval(raw_gap), _interval(adj_gap)
        dm, dh = _interval([a - r for a, r in zip(adj_gap, raw_gap)])
        print(f"  gap heuristic - weaker: raw {rm:+.2f} ± {rh:.2f}, luck-adjusted {am:+.2f} ± {ah:.2f} "
              f"(change {dm:+.2f} ± {dh:.2f})")
    evaluations = statistics.fmean(game["evaluations"] for game in games)
    print(f"  luck CPU per game: mean {statistics.fmean(cpu):.2f} s, max {max(cpu):.2f} s "
          f"({evaluations:.0f} readings of V a game; load {load:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated GAME:SEATS")
    parser.add_argument("--games-per", type=int, default=100, help="games per configuration")
    parser.add_argument("--unequal", action="store_true", help="seat 0 the heuristic, the others weaker")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--first-seed", type=int, default=0)
    args = parser.parse_args()
    for config in args.configs.split(","):
        game_id, seats = config.split(":")
        tasks = [(game_id, int(seats), seed, args.unequal)
                 for seed in range(args.first_seed, args.first_seed + args.games_per)]
        if args.processes > 1:
            with Pool(args.processes) as pool:
                games = pool.map(play_one, tasks)
        else:
            games = [play_one(task) for task in tasks]
        report(config, games, args.unequal)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
