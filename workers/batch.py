"""Batch mode of the local CLI: many matches of the same bots, in parallel, summed up per bot.

    python -m workers.play GAME BOT [BOT ...] --games N [--jobs J] [--rotate] [--seed S] [--json]

Game ``g`` is played on seed ``S + g``. Without ``--rotate`` every bot keeps its seat; with it
the bots move one seat on at each game (bot ``i`` sits in seat ``(i + g) % k``), so a seat's
advantage is shared out. Per bot (in the order given): the win rate (rank 1, ties included)
with its Wilson 95 % interval, the mean score with its 95 % interval (normal, from the games'
standard deviation), faults counted by kind, and timing over all its decisions. Games run in
``--jobs`` processes (default: the cores) with the same sandbox and runner as the workers.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass

from workers.build import seat_for
from workers.runner import Limits, run_match

Z95 = 1.959964


@dataclass(frozen=True)
class BatchGame:
    """One game of a batch: its seed and which bot (index into the command line's) sits where."""

    number: int
    seed: int
    order: tuple[int, ...]      # order[seat] = bot index


def batch_games(bots: int, games: int, seed: int, rotate: bool) -> list[BatchGame]:
    """The games of a batch, seeds ``seed .. seed + games - 1``, seats rotating if asked."""
    return [BatchGame(g, seed + g, tuple((seat - g) % bots if rotate else seat for seat in range(bots)))
            for g in range(games)]


def play_one(game_id: str, bots: tuple[str, ...], game: BatchGame, options, limits: Limits) -> dict:
    """Play one game of a batch; the facts the summary needs, per seat."""
    seats = [seat_for(bots[index]) for index in game.order]     # a compiled bot: its cached build
    outcome = run_match(game_id, seats, seed=game.seed, options=options, limits=limits)
    return {"scores": outcome.scores, "ranks": outcome.ranks,
            "faults": [{"seat": f.seat, "kind": f.kind} for f in outcome.faults],
            "timing": outcome.timing}


def wilson(k: int, n: int) -> list[float]:
    """The Wilson 95 % interval of the proportion ``k / n``."""
    if n == 0:
        return [0.0, 1.0]
    p, z2 = k / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def mean_interval(values: list[float]) -> tuple[float, list[float]]:
    """The mean and its normal 95 % interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, [mean, mean]
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, [round(mean - half, 4), round(mean + half, 4)]


def summarise(bots: tuple[str, ...], played: list[tuple[BatchGame, dict]]) -> list[dict]:
    """Per bot: wins, win rate, mean score (each with its interval), faults by kind, timing."""
    rows = []
    for index, bot in enumerate(bots):
        faults: Counter[str] = Counter()
        scores, wins, decisions, spent, worst, p95s = [], 0, 0, 0.0, 0.0, []
        for game, outcome in played:
            seat = game.order.index(index)
            scores.append(float(outcome["scores"][seat]))
            wins += outcome["ranks"][seat] == 1
            faults.update(f["kind"] for f in outcome["faults"] if f["seat"] == seat)
            timing = outcome["timing"][seat]
            decisions += timing["decisions"]
            spent += timing["mean_ms"] * timing["decisions"]
            worst = max(worst, timing["max_ms"])
            if timing["decisions"]:
                p95s.append(timing["p95_ms"])
        n = len(played)
        mean, interval = mean_interval(scores) if scores else (0.0, [0.0, 0.0])
        rows.append({"bot": bot, "games": n, "wins": wins, "win_rate": round(wins / n, 4) if n else 0.0,
                     "win_rate_ci": wilson(wins, n), "mean_score": round(mean, 4), "mean_score_ci": interval,
                     "faults": dict(faults),
                     "timing": {"decisions": decisions, "mean_ms": round(spent / decisions, 3) if decisions else 0.0,
                                "median_game_p95_ms": round(statistics.median(p95s), 3) if p95s else 0.0,
                                "max_ms": round(worst, 3)}})
    return rows


def run_batch(game_id: str, bots: tuple[str, ...], games: int, seed: int, rotate: bool, options,
              limits: Limits, jobs: int, on_game=None) -> dict:
    """Play the batch and sum it up; ``on_game(done, total)`` after each game."""
    schedule = batch_games(len(bots), games, seed, rotate)
    started = time.monotonic()
    played: list[tuple[BatchGame, dict]] = []
    if jobs <= 1:
        for game in schedule:
            played.append((game, play_one(game_id, bots, game, options, limits)))
            if on_game:
                on_game(len(played), games)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(play_one, game_id, bots, game, options, limits): game for game in schedule}
            try:
                for future in concurrent.futures.as_completed(futures):
                    played.append((futures[future], future.result()))
                    if on_game:
                        on_game(len(played), games)
            finally:
                for future in futures:
                    future.cancel()
    played.sort(key=lambda item: item[0].number)
    seconds = time.monotonic() - started
    return {"game": game_id, "games": games, "seeds": [seed, seed + games - 1], "rotate": rotate,
            "jobs": jobs, "bots": summarise(bots, played), "seconds": round(seconds, 2),
            "games_per_second": round(games / seconds, 3) if seconds else None}


def summary(data: dict) -> str:
    """A readable account of a batch."""
    lines = [f"{data['game']}: {data['games']} games, seeds {data['seeds'][0]}-{data['seeds'][1]}"
             f"{', seats rotating' if data['rotate'] else ''}; {data['seconds']:.1f} s "
             f"({data['games_per_second']} games/s, {data['jobs']} jobs)"]
    for row in data["bots"]:
        lo, hi = row["win_rate_ci"]
        slo, shi = row["mean_score_ci"]
        t = row["timing"]
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(row["faults"].items())) or "none"
        lines.append(f"  {row['bot']}")
        lines.append(f"    wins {row['wins']}/{row['games']} = {row['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]   "
                     f"mean score {row['mean_score']:.2f} [{slo:.2f}, {shi:.2f}]   faults: {faults}")
        lines.append(f"    {t['decisions']} decisions, mean {t['mean_ms']:.2f} ms, median per-game p95 "
                     f"{t['median_game_p95_ms']:.2f} ms, max {t['max_ms']:.2f} ms")
    return "\n".join(lines)


def progress(done: int, total: int, started: list[float]) -> None:
    """Show ``done`` of ``total`` games on stderr (in place on a terminal, every 5 s otherwise)."""
    now = time.monotonic()
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{done}/{total} games" + ("\n" if done == total else ""))
        sys.stderr.flush()
    elif now - started[0] >= 5 or done == total:
        started[0] = now
        print(f"{done}/{total} games", file=sys.stderr, flush=True)


def default_jobs() -> int:
    """The default number of parallel games: the cores."""
    return os.cpu_count() or 1
