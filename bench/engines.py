"""Engine speed: random-vs-random games, one core, no sandbox.

Prints decisions/s and games/s per game and player count. A decision is one
``legal_actions`` call for each seat to act plus one ``apply``. In games with simultaneous
moves one apply carries several seats' choices: "seat choices/s" counts those.
``--observe`` adds one ``observation`` call for each seat to act (what the match runner
sends the bots, ``events`` included). ``--cpu`` counts the process's CPU time instead of
wall-clock time: steadier on a machine shared with other work. ``--reference`` adds Deep Dive's
readable rules engine (engines/deep_dive/reference.py, the fast one's check) as a row of its own.

    .venv/bin/python bench/engines.py [--game ID] [--seconds S] [--options JSON] [--observe] [--cpu]
                                      [--reference]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import get_game, list_games  # noqa: E402
from engines.deep_dive.reference import GAME as DEEP_DIVE_REFERENCE  # noqa: E402


def play(game, num_players: int, seed: int, options: dict | None = None,
         observe: bool = False, chooser: random.Random | None = None) -> tuple[int, int]:
    """One random game; returns (decisions, seat choices). The choices come from ``chooser``
    (default: a new ``random.Random(seed)``, so that one game can be played again alone)."""
    state = game.new_state(num_players=num_players, seed=seed, options=options)
    if chooser is None:
        chooser = random.Random(seed)
    decisions = choices = 0
    to_act = state.to_act
    legal_actions = state.legal_actions
    apply = state.apply
    observation = state.observation
    while True:
        seats = to_act()
        if not seats:
            return decisions, choices
        actions = {}
        for seat in seats:
            if observe:
                observation(seat)
            legal = legal_actions(seat)
            actions[seat] = legal[int(chooser.random() * len(legal))]
        apply(actions)
        decisions += 1
        choices += len(seats)


def measure(game, num_players: int, seconds: float, options: dict | None = None,
            observe: bool = False, clock=time.perf_counter) -> tuple[float, float, float, int]:
    games = decisions = choices = 0
    # One chooser for the whole run, not one per game: seeding a random.Random costs ~3.5 µs,
    # the bench's and not the engine's (6 % of a 4-player Deep Dive game). The run stays
    # reproducible: the same games in the same order.
    chooser = random.Random(num_players)
    start = clock()
    while clock() - start < seconds:
        played, chosen = play(game, num_players, seed=games, options=options, observe=observe, chooser=chooser)
        decisions += played
        choices += chosen
        games += 1
    elapsed = clock() - start
    return decisions / elapsed, choices / elapsed, games / elapsed, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game id (repeatable); default: all")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per game and player count")
    parser.add_argument("--options", type=json.loads, default=None,
                        help='game options as JSON, e.g. \'{"special_tiles": true}\' (use with --game)')
    parser.add_argument("--observe", action="store_true",
                        help="also ask the observation of every seat to act, as the match runner does")
    parser.add_argument("--cpu", action="store_true", help="count CPU time, not wall-clock time")
    parser.add_argument("--reference", action="store_true",
                        help="also measure Deep Dive's readable rules engine (row deep_dive:reference)")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    games = [get_game(g) for g in args.game] if args.game else list_games()
    rows = [(game.id, game) for game in games]
    if args.reference:
        rows.append(("deep_dive:reference", DEEP_DIVE_REFERENCE))
    print(f"{'game':<22} {'players':>7} {'decisions/s':>12} {'seat choices/s':>15} "
          f"{'games/s':>9} {'games':>6}")
    for name, game in rows:
        for n in range(game.min_players, game.max_players + 1):
            dps, cps, gps, count = measure(game, n, args.seconds, args.options, args.observe, clock)
            print(f"{name:<22} {n:>7} {dps:>12,.0f} {cps:>15,.0f} {gps:>9,.1f} {count:>6}",
                  flush=True)


if __name__ == "__main__":
    main()
