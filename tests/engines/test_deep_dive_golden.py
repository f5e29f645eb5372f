"""Deep Dive plays exactly the games it played when these digests were taken (engine version 3).

Stored compact replays hold a seed and the choices only, and are replayed by the engine of the
version they name: a change that moved any seed's chance, state or view without a version bump
would silently change every stored game. These digests were taken from the engine at main
``669d94b`` and cover, along random games at 2, 3 and 4 players, every seat's observation
(``events`` included) and legal actions, the spectator and full views (supply, closed shells,
every roll) at every step, and the result: with keyed chance (``KeyedRandom``, the platform's
source: words read a block at a time) and with a play-order ``random.Random`` (the engine's
one-call-per-draw reading, in the order a scripted source sees). Actions are given both as the
engine's shared legal actions and as plain dicts, and some games go on from a clone.

New digests are taken only together with a bump of the engine's version
(docs/replay-format.md, "Engine versions (pinning)"):
``PYTHONPATH=. .venv/bin/python tests/engines/test_deep_dive_golden.py`` prints them.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engines.deep_dive import GAME
from engines.deep_dive.state import CYCLE_WORDS, REJECTABLE, ROUND_BLOCKS
from engines.rng import KeyedRandom
from tests.engines.conformance import MethodsOnly

GAMES_PER_COUNT = 150
# Taken from main at 669d94b (before any speed work on the engine): see the module docstring.
GOLDEN = {
    ("keyed", 2):
        "17be10dd64e216219ffefd1d7d98018f59eb8445bc2caa748267bc6f2e16f662",
    ("keyed", 3):
        "d89556163082e8e80aa29332ac841545c9403436cee5e7829d64c2e9282393b9",
    ("keyed", 4):
        "e8ed7cdae4d172a79013ebd56980e7bfb3e8a86321f69c7d68711b5939bba82f",
    ("play_order", 2):
        "eec61f026336695dd1b595df16ef648aaffa8e319f6df228c30ccc0d9324fd8c",
    ("play_order", 3):
        "c70939252a49f45416bb734ca0bbeac5966e3fa95dacda12dd2716430d46de75",
    ("play_order", 4):
        "eab948a5c9c1c3dedb05483d7cf5fe9e7d0510512d6bb32a39c25ff12258027a",
}


def _feed(digest, value) -> None:
    digest.update(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())
    digest.update(b"\n")


def _play(digest, num_players: int, seed: int, source: str) -> None:
    rng = None if source == "keyed" else random.Random(seed)
    state = GAME.new_state(num_players=num_players, seed=seed, rng=rng)
    chooser = random.Random(1000 * num_players + seed)
    seats = range(num_players)
    step = 0
    while True:
        _feed(digest, [state.to_act(), state.is_terminal(), state.spectator_view(), state.full_view(),
                       [state.observation(seat) for seat in seats],
                       [state.legal_actions(seat) for seat in seats]])
        if state.is_terminal():
            _feed(digest, state.result())
            return
        actions = {}
        for seat in state.to_act():
            action = chooser.choice(state.legal_actions(seat))
            # Half the time a plain dict equal to the legal action, as a bot's answer arrives.
            actions[seat] = dict(action) if chooser.random() < 0.5 else action
        step += 1
        if step == 3 and seed % 3 == 0:
            state = state.clone()
        state.apply(actions)


def digest_of(source: str, num_players: int) -> str:
    """The digest of GAMES_PER_COUNT seeded random games (seeds 0, 1, ...)."""
    digest = hashlib.sha256()
    for seed in range(GAMES_PER_COUNT):
        _play(digest, num_players, seed, source)
    return digest.hexdigest()


@pytest.mark.parametrize("source, num_players", sorted(GOLDEN))
def test_every_seed_plays_the_game_it_played_at_engine_version_3(source, num_players):
    assert GAME.version == "3", "a new engine version plays new games: take new digests with it"
    assert digest_of(source, num_players) == GOLDEN[source, num_players]


def _views_along(num_players: int, seed: int, rng) -> list:
    state = GAME.new_state(num_players=num_players, seed=seed, rng=rng)
    chooser = random.Random(seed)
    views = []
    while True:
        views.append([state.full_view(), state.spectator_view(),
                      [state.observation(seat) for seat in range(num_players)]])
        if state.is_terminal():
            views.append(state.result())
            return views
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})


def _blocks_met(views, num_players: int, seed: int) -> list:
    """The cycles whose words the engine checks that hold a word Lemire's check may replace."""
    source = KeyedRandom(seed)
    met = []
    for cycle in views[-2][0]["history"]:
        water = sum(1 << int(seat) for seat in cycle["colour_rolls"])
        unpack, _ = CYCLE_WORDS[num_players][cycle["start_player"]][water]
        words = unpack(source.block(ROUND_BLOCKS[cycle["round"]][cycle["cycle"] - 1]))
        if not REJECTABLE.isdisjoint(words):
            met.append((cycle["round"], cycle["cycle"]))
    return met


# Found by playing seeds 0, 1, ... with random.Random(seed) choosing: about one 4-player game in
# 80,000 meets such a block; the last two meet a word the check does replace (a shell of round
# 1, cycle 1 and one of round 2, cycle 2), though the token drawn again is of the same kind.
@pytest.mark.parametrize("seed", [92511, 116484, 1871975, 2006283])
def test_a_cycle_holding_a_word_lemire_may_replace_plays_as_the_streams_own_calls(seed):
    fast = _views_along(4, seed, KeyedRandom(seed))
    assert _blocks_met(fast, 4, seed), "the seed no longer meets such a block: find another"
    assert fast == _views_along(4, seed, MethodsOnly(KeyedRandom(seed)))


if __name__ == "__main__":
    for key in sorted(GOLDEN):
        print(key, digest_of(*key))
