"""The most any rating of score margins can get: Kendall tau of an oracle after M matches per bot.

    .venv/bin/python bench/rating_ceiling.py [--games dive_diver_die,deep_sea_adventure,deep_dive] [--tables 20000]

For each game of issue 13's goal, the eight graded bots of ``bench/rating_quality.py`` play
``--tables`` random tables (as many seats as its ladder there: 4, 4, 2); the score-margin fit of all of them (each seat's score minus its table's mean) gives
each bot's strength and the noise of one seat's result in one game. The oracle then knows every
table effect exactly and sees each bot's strength through the noise of its own M games only
(independent games, Gaussian noise: the best case for a least-squares rating); the printed tau is
its mean over many draws. A ladder rating, which must also estimate the tables and meets
correlated games, stays under it: if the oracle is under 0.9 at some M, no rating of these
results reaches 0.9 there. Also printed: the neighbouring bots' gaps in noise standard deviations
per game, which say why. The strengths come from finitely many tables: a gap under their own
error (about 0.015 noise sd at 20,000 tables of 4) can come out misordered, which lowers the
oracle a little; more tables shrink that.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rating_quality import GAMES, RANDOM_MOVE, _graded_bot, _margin_fit, _play, kendall_tau  # noqa: E402

from engines import get_game  # noqa: E402

CHECKPOINTS = (30, 60, 100, 200)
DRAWS = 20_000


def strengths_and_noise(game_id: str, seats: int, tables: int, rng: random.Random) -> tuple[list[float], float]:
    game = get_game(game_id)
    bots = [_graded_bot(game.bots["heuristic"], chance) for chance in RANDOM_MOVE]
    games = []
    for _ in range(tables):
        seated = rng.sample(range(len(bots)), seats)
        _, scores = _play(game, bots, seated, rng.randrange(2**53))
        games.append((seated, scores))
    strengths = _margin_fit(games, len(bots))
    residuals = []
    for seated, scores in games:
        table = sum(scores) / seats - sum(strengths[b] for b in seated) / seats
        residuals += [scores[s] - strengths[b] - table for s, b in enumerate(seated)]
    # Centring on the table's mean leaves (1 - 1/seats) of a seat's own noise variance in its residual.
    noise = math.sqrt(sum(r * r for r in residuals) / (len(residuals) * (1 - 1 / seats)))
    return strengths, noise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, of {', '.join(GAMES)}")
    parser.add_argument("--tables", type=int, default=20_000, help="random tables played per game")
    args = parser.parse_args()
    if args.tables < 100:
        parser.error("--tables must be at least 100: the strengths come from them")
    unknown = [g for g in args.games.split(",") if g not in GAMES]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; choose from {', '.join(GAMES)}")
    for game_id in args.games.split(","):
        seats = GAMES[game_id]
        rng = random.Random(f"rating-ceiling:{game_id}")
        strengths, noise = strengths_and_noise(game_id, seats, args.tables, rng)
        gaps = [(strengths[i] - strengths[i + 1]) / noise for i in range(len(strengths) - 1)]
        print(f"{game_id} {seats}p, {args.tables} random tables: strengths "
              f"{' '.join(f'{s:.2f}' for s in strengths)}; noise sd of a seat's game {noise:.2f}")
        print(f"  neighbour gaps per game, in noise sd: {' '.join(f'{g:.3f}' for g in gaps)}")
        for m in CHECKPOINTS:
            draws = [kendall_tau([s + rng.gauss(0.0, noise / math.sqrt(m)) for s in strengths])
                     for _ in range(DRAWS)]
            print(f"  oracle tau at M={m:<3}  {statistics.mean(draws):.3f}")


if __name__ == "__main__":
    main()
