"""Where a random Deep Dive game's CPU time goes: the bench loop, keyed chance, the rules.

Counts BLAKE2b blocks (``KeyedRandom.block``) and streams per game by wrapping the engine's
chance source, times each part on its own with ``time.process_time`` and prints a per-game
breakdown per player count; "rules" is what is left of a whole game (``bench/engines.py``'s
``play``).

    .venv/bin/python bench/deep_dive_parts.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from importlib import util as _util
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game  # noqa: E402
from engines.rng import KeyedRandom, KeyedStream, block_id, stream_key  # noqa: E402

# bench/engines.py's own play loop (its file name is the engines package's, so by path).
_spec = _util.spec_from_file_location("bench_engines", Path(__file__).resolve().parent / "engines.py")
bench_engines = _util.module_from_spec(_spec)
_spec.loader.exec_module(bench_engines)

_LEGAL = [{"type": "stay"}, {"type": "leave"}]


class _IdleState:
    """Plays ``decisions`` decisions of ``seats`` seats at no cost: what the bench loop costs."""

    def __init__(self, seats: int, decisions: int):
        self.seats, self.left = list(range(seats)), decisions

    def to_act(self):
        return self.seats[:] if self.left else []

    def legal_actions(self, seat):
        return _LEGAL

    def apply(self, actions):
        self.left -= 1

    def observation(self, seat):
        return {}


class _IdleGame:
    def __init__(self, seats: int, decisions: int):
        self.seats, self.decisions = seats, decisions

    def new_state(self, num_players, seed, options=None):
        return _IdleState(self.seats, self.decisions)


def per_call(function, count: int) -> float:
    """µs of CPU time per call of ``function(i)``."""
    start = time.process_time()
    for i in range(count):
        function(i)
    return (time.process_time() - start) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per player count")
    args = parser.parse_args()
    game = get_game("deep_dive")
    play = bench_engines.play
    for n in range(game.min_players, game.max_players + 1):
        counts = {"streams": 0, "refills": 0, "blocks": 0}
        stream, refill, block = KeyedRandom.stream, KeyedStream._refill, KeyedRandom.block

        def counted_stream(self, *key):
            counts["streams"] += 1
            return stream(self, *key)

        def counted_refill(self):
            counts["refills"] += 1
            return refill(self)

        def counted_block(self, name):
            counts["blocks"] += 1
            return block(self, name)

        KeyedRandom.stream, KeyedStream._refill, KeyedRandom.block = (
            counted_stream, counted_refill, counted_block)
        try:
            decisions = sum(play(game, n, seed)[0] for seed in range(args.games)) / args.games
        finally:
            KeyedRandom.stream, KeyedStream._refill, KeyedRandom.block = stream, refill, block
        streams, refills, blocks = (counts[kind] / args.games for kind in ("streams", "refills", "blocks"))

        # One chooser per run, as bench/engines.py measures.
        chooser = random.Random(n)
        whole = per_call(lambda seed: play(game, n, seed, chooser=chooser), args.games)
        # The idle engine acts with n seats at every decision: an upper bound of the loop's cost.
        idle = _IdleGame(n, round(decisions))
        loop = per_call(lambda seed: play(idle, n, seed, chooser=chooser), args.games)
        source = KeyedRandom(1)
        names = [block_id(stream_key("round", 1), index) for index in range(8)]
        block_cost = per_call(lambda i: source.block(names[i & 7]), 100_000)
        stream_cost = per_call(lambda i: source.stream("round", i), 100_000)
        block_stream = source.stream("round", 1)
        refill_cost = per_call(lambda i: block_stream._refill(), 100_000)
        seed_cost = per_call(KeyedRandom, 50_000)
        chance = blocks * block_cost + streams * stream_cost + refills * refill_cost + seed_cost
        rules = whole - loop - chance
        print(f"{n} players: {whole:.1f} µs/game, {decisions:.1f} decisions/game "
              f"({decisions / whole * 1e6:,.0f} decisions/s)")
        print(f"  bench loop            {loop:6.1f} µs  (idle engine: to_act, choosing, the actions dict)")
        print(f"  BLAKE2b blocks        {blocks * block_cost:6.1f} µs  ({blocks:.1f} x {block_cost:.2f}:"
              f" KeyedRandom.block, copy, update, digest)")
        print(f"  streams, their blocks {streams * stream_cost + refills * refill_cost:6.1f} µs  "
              f"({streams:.2f} x {stream_cost:.2f} + {refills:.2f} x {refill_cost:.2f}: only where a word "
              f"Lemire's check may replace is met)")
        print(f"  KeyedRandom(seed)     {seed_cost:6.1f} µs")
        print(f"  rules (the rest)      {rules:6.1f} µs  (budget for 200k decisions/s: "
              f"{decisions / 200_000 * 1e6 - loop - chance:.1f} µs)", flush=True)


if __name__ == "__main__":
    main()
