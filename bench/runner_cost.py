"""The runner's own cost per match against the bare engine loop, in-process, one core.

    .venv/bin/python bench/runner_cost.py [--games 200] [--game ID] [--players N]

For each game: the *bare engine loop* (``legal_actions`` of every seat to act, a random choice,
``apply``, to the end: bench/engines.py's loop) and ``workers.runner.run_match`` with
``builtin:random`` seats recording its compact replay (version 2, the only one it records). The runner's own cost is its wall time minus the bots' own
decision time (what it measured around each built-in bot's call). It is split into:

- ``seat seeds``: the per-match key the seat seeds come from (PBKDF2, issue 11's protection of the
  match seed: a fixed ~3 ms, the same whatever the game or its length), measured on its own;
- the rest: asking the bots (their observations and legal actions), applying, recording.

Each match uses a new seed (the seat-seed key is cached per seed). Prints milliseconds per match
(medians over the games) and the ratios; record ``uptime`` with the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402
from workers.match import seats as match_seats  # noqa: E402
from workers.protocol import observation_text  # noqa: E402
from workers.replay import step_count  # noqa: E402
from workers.runner import SeatSpec, run_match, step_hash  # noqa: E402

CASES = [("deep_sea_adventure", 4), ("divee", 2), ("dive_diver_die", 3), ("deep_dive", 2), ("dive", 3)]


def bare_loop(game, players: int, seed: int, observe: bool = False, hash_steps: bool = False) -> float:
    """Seconds for one random game on the engine alone; ``observe``: with each deciding seat's
    observation (what the bots must be given), ``hash_steps``: serialized and hashed as the
    runner's compact replay does."""
    started = time.perf_counter()
    state = game.new_state(num_players=players, seed=seed)
    chooser = random.Random(seed)
    while True:
        seats = state.to_act()
        if not seats:
            break
        actions = {}
        texts = []
        for seat in seats:
            legal = state.legal_actions(seat)
            if observe:
                observation = state.observation(seat)
                if hash_steps:
                    texts.append(observation_text(observation))
            actions[seat] = legal[int(chooser.random() * len(legal))]
        if hash_steps:
            step_hash(texts)
        state.apply(actions)
    return time.perf_counter() - started


def seat_seed_key(seed: int) -> float:
    """Seconds to derive a match's seat-seed key (uncached)."""
    started = time.perf_counter()
    match_seats._match_key.__wrapped__(seed)
    return time.perf_counter() - started


def runner_match(game_id: str, players: int, seed: int) -> tuple[float, float, int]:
    """(wall seconds, the bots' own seconds, steps) of one run_match with random built-ins."""
    seats = [SeatSpec("builtin:random")] * players
    started = time.perf_counter()
    outcome = run_match(game_id, seats, seed)
    wall = time.perf_counter() - started
    # The bots' own time: the runner's timing of each built-in call, summed (mean x decisions).
    bots = sum(row["mean_ms"] * row["decisions"] for row in outcome.timing) / 1000
    steps = step_count(outcome.replay)
    return wall, bots, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--game")
    parser.add_argument("--players", type=int)
    args = parser.parse_args()
    cases = [(args.game, args.players or 2)] if args.game else CASES
    print(f"bench/runner_cost.py --games {args.games}; uptime: "
          f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print("ms per match (medians). engine: the bare loop; +obs: with the deciding seats' observations (the\n"
          "bots' input); +hash: also serialized and hashed as a compact replay's steps; seeds: the seat-seed\n"
          "key; own: run_match's wall time minus the bots' own time, recording its compact replay;\n"
          "ratio: own cost without the seat seeds over the bare loop")
    print(f"{'game':<20} {'p':>2} {'steps':>5} {'engine':>8} {'+obs':>8} {'+hash':>8} {'seeds':>7} {'own':>8} "
          f"{'-seeds':>9} {'ratio':>6}")
    for game_id, players in cases:
        game = get_game(game_id)
        seeds = [random.Random(f"{game_id}{players}").randrange(2**53) + k for k in range(args.games)]
        for seed in seeds[:5]:  # warm up imports and caches
            bare_loop(game, players, seed)
            run_match(game_id, [SeatSpec("builtin:random")] * players, seed)
        engine = statistics.median(bare_loop(game, players, seed) for seed in seeds) * 1000
        observed = statistics.median(bare_loop(game, players, seed, observe=True) for seed in seeds) * 1000
        hashed = statistics.median(bare_loop(game, players, seed, True, True) for seed in seeds) * 1000
        key = statistics.median(seat_seed_key(seed) for seed in seeds[: max(20, args.games // 5)]) * 1000
        runs = [runner_match(game_id, players, seed + 2 * 10**6) for seed in seeds]
        own = statistics.median((wall - bots) * 1000 for wall, bots, _ in runs)
        steps = statistics.median(s for _, _, s in runs)
        without = own - key
        print(f"{game_id:<20} {players:>2} {steps:>5.0f} {engine:>8.3f} {observed:>8.3f} {hashed:>8.3f} "
              f"{key:>7.3f} {own:>8.3f} {without:>9.3f} {without / engine:>6.1f}",
              flush=True)
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
