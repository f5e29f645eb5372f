"""Plays every built-in bot of every game and prints the games as JSON (one line).

Run as ``python -m tests.engines.bot_games`` by the determinism test, once per PYTHONHASHSEED:
a bot whose choices follow set or hash order plays a different game in each process.
"""

from __future__ import annotations

import json
import random
import sys

from engines import list_games

# Seed 37 is one where Dive! Diver! Die!'s heuristic (2 players, jewel on) holds two depth
# clues whose order decides its plan: a search over 40 seeds found the games of PYTHONHASHSEED
# 1 and 2 differing there while the clues were a set.
SEEDS = (0, 1, 37)


def option_sets(game) -> list[dict]:
    """The default options and, for each boolean option, the defaults with it flipped."""
    sets = [game.default_options]
    for name, value in game.default_options.items():
        if isinstance(value, bool):
            sets.append({**game.default_options, name: not value})
    return sets


def play(game, bots: list[str], seed: int, options: dict) -> dict:
    state = game.new_state(num_players=len(bots), seed=seed, options=options)
    rngs = [random.Random(seed * 100 + seat) for seat in range(len(bots))]
    actions = []
    while not state.is_terminal():
        chosen = {}
        for seat in state.to_act():
            bot = game.bots[bots[seat]]
            chosen[seat] = bot(state.observation(seat), state.legal_actions(seat), rngs[seat])
        actions.append({str(seat): action for seat, action in chosen.items()})
        state.apply(chosen)
    return {"actions": actions, "result": state.result()}


def all_games() -> list[dict]:
    games = []
    for game in list_games():
        names = sorted(game.bots)
        players = min(max(game.min_players, 2), game.max_players)
        lineups = [[name] * players for name in names]
        lineups.append([names[seat % len(names)] for seat in range(max(players, 3, len(names)))
                        ][:game.max_players])
        for options in option_sets(game):
            for bots in lineups:
                if len(bots) < game.min_players:
                    continue
                for seed in SEEDS:
                    games.append({"game": game.id, "bots": bots, "seed": seed, "options": options,
                                  **play(game, bots, seed, options)})
    return games


if __name__ == "__main__":
    json.dump(all_games(), sys.stdout, sort_keys=True)
