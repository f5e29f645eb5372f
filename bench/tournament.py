"""Tournament pairing speed: Swiss, round robin and elimination rounds, one core, no Django.

Prints the time to pair a 64-entrant 4-seat Swiss of 7 rounds (results simulated between
rounds), a 64-entrant round robin, the matches each schedules (tables x games per table, a
rotation group being k games), and the time of one round at n=1,000 for k=2..6 against the
goal of pairing any round of up to 1,000 entrants in under 1 s.

    .venv/bin/python bench/tournament.py [--entrants N] [--large N] [--repeat R]

The wall time of a whole 16-entrant tournament on the local worker needs the tournament app
and a worker: it lives in bench/tournament_run.py, next to that app.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from competition.formats import (  # noqa: E402
    elimination_plan,
    elimination_round,
    round_robin,
    swiss_round,
    table_sizes,
)


def simulate_swiss(n: int, k: int, rounds: int, seed: int) -> tuple[list[float], int, int]:
    """Pair a Swiss round by round with simulated results; returns per-round pairing seconds,
    tables played and repeat table-mates."""
    rng = random.Random(seed)
    strength = {e: rng.gauss(0, 1) for e in range(n)}
    points = Counter({e: 0.0 for e in range(n)})
    meetings: Counter = Counter()
    byes_had: set[int] = set()
    timings, tables_played, repeats = [], 0, 0
    for _ in range(rounds):
        ranked = sorted(range(n), key=lambda e: (-points[e], -strength[e]))
        start = time.perf_counter()
        tables = swiss_round(ranked, meetings, k, min_seats=2, byes_had=byes_had)
        timings.append(time.perf_counter() - start)
        seated = {e for t in tables for e in t}
        byes_had |= set(range(n)) - seated
        for table in tables:
            tables_played += 1
            for pair in itertools.combinations(table, 2):
                repeats += meetings[frozenset(pair)] > 0
                meetings[frozenset(pair)] += 1
            finish = sorted(table, key=lambda e: -(strength[e] + rng.gauss(0, 1)))
            for place, e in enumerate(finish):
                points[e] += len(table) - 1 - place
    return timings, tables_played, repeats


def time_round_robin(n: int, k: int, rounds: int) -> tuple[float, int, int]:
    """Seconds for the whole schedule, tables in it, max-min of the pair-meeting counts."""
    start = time.perf_counter()
    schedule = round_robin(list(range(n)), k, rounds, min_seats=2)
    elapsed = time.perf_counter() - start
    counts = Counter({pair: 0 for pair in itertools.combinations(range(n), 2)})
    for round_ in schedule:
        for table in round_:
            counts.update(itertools.combinations(sorted(table), 2))
    values = counts.values()
    return elapsed, sum(len(r) for r in schedule), max(values) - min(values)


def rounds_for_everyone_to_meet(n: int, k: int) -> int:
    """Fewest rounds whose table pairs could cover every pair of entrants once."""
    sizes = table_sizes(n, k, min_seats=2)
    return -(-(n * (n - 1) // 2) // sum(s * (s - 1) // 2 for s in sizes))


def time_elimination(n: int, k: int, m: int) -> tuple[float, int]:
    start = time.perf_counter()
    plan = elimination_plan(n, k, m, min_seats=2)
    seeded = list(range(n))
    tables_played = 0
    for _ in plan:
        tables = elimination_round(seeded, k, min_seats=2, m=m)
        tables_played += len(tables)
        seated = {e for t in tables for e in t}
        survivors = [e for e in seeded if e not in seated]
        survivors += [e for t in tables for e in sorted(t)[:m]]
        seeded = sorted(survivors)
    return time.perf_counter() - start, tables_played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=64, help="field of the 7-round runs")
    parser.add_argument("--large", type=int, default=1000, help="field of the one-round goal")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    args = parser.parse_args()
    n, big = args.entrants, args.large

    print(f"Swiss, {n} entrants, 4 seats, 7 rounds (simulated results between rounds)")
    best = min((simulate_swiss(n, 4, 7, seed) for seed in range(args.repeat)),
               key=lambda run: sum(run[0]))
    timings, tables, repeats = best
    print(f"  pairing total {sum(timings) * 1000:8.1f} ms, slowest round "
          f"{max(timings) * 1000:.1f} ms; {tables} tables x 4 games = {tables * 4} matches; "
          f"repeat table-mates {repeats}")

    print(f"Round robin, {n} entrants (7 rounds, and enough rounds for every pair to meet)")
    for k in range(2, 7):
        for rounds in (7, rounds_for_everyone_to_meet(n, k)):
            elapsed, tables, spread = min(time_round_robin(n, k, rounds)
                                          for _ in range(args.repeat))
            print(f"  {k} seats, {rounds:>3} rounds: {elapsed * 1000:8.1f} ms "
                  f"({elapsed / rounds * 1000:6.1f} ms/round), {tables} tables x {k} games = "
                  f"{tables * k} matches; pair-meeting max-min {spread}", flush=True)

    print(f"Elimination, {n} entrants, 4 seats, top 2 advance")
    elapsed, tables = min(time_elimination(n, 4, 2) for _ in range(args.repeat))
    print(f"  {elapsed * 1000:8.1f} ms, plan {elimination_plan(n, 4, 2, min_seats=2)}, "
          f"{tables} tables x 4 games = {tables * 4} matches")

    print(f"One round at {big} entrants (goal: under 1 s)")
    print(f"  {'k':>2} {'Swiss round 1':>14} {'Swiss round 7':>14} {'round robin / round':>20}")
    for k in range(2, 7):
        timings, _, _ = simulate_swiss(big, k, 7, seed=0)
        rr_rounds = 7
        elapsed, _, _ = time_round_robin(big, k, rr_rounds)
        print(f"  {k:>2} {timings[0] * 1000:11.1f} ms {timings[-1] * 1000:11.1f} ms "
              f"{elapsed / rr_rounds * 1000:17.1f} ms", flush=True)


if __name__ == "__main__":
    main()
