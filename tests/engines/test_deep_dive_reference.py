"""The fast Deep Dive engine against the readable one (engines/deep_dive/reference.py), step by step.

Both engines play the same game from the same seed and the same actions; at every step the seats
to act, every seat's legal actions and observation (events included), the spectator and full views
and, at the end, the result must be the same JSON. Games are played under four policies (random
choices, the built-in heuristic for every seat, the heuristic against random, every diver always
staying: that one reaches the 30-round limit) at 2, 3 and 4 seats, with the platform's keyed chance,
with keyed chance read one call per draw, and with a play-order ``random.Random``; some go on from a
clone, some meet an illegal action first. ``nice .venv/bin/python -m tests.engines.test_deep_dive_reference 10``
runs a sweep ten times as long (other seeds' games too: seeds 0 to 10 times the suite's count).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

import pytest

from engines import IllegalAction
from engines.deep_dive import GAME as FAST
from engines.deep_dive.bots import heuristic_bot
from engines.deep_dive.reference import GAME as REFERENCE
from engines.rng import KeyedRandom
from tests.engines.conformance import MethodsOnly

POLICIES = ("random", "heuristic", "heuristic_vs_random", "always_stay")
SOURCES = ("keyed", "keyed_by_calls", "play_order")
# Games per seat count, policy and source: 1,188 in all. Always staying makes long games (up to
# 30 rounds, some 250 decisions), so fewer of those.
GAMES = {"random": 40, "heuristic": 40, "heuristic_vs_random": 40, "always_stay": 4}
# Seeds whose 4-player random game (random.Random(seed) choosing) meets a word block Lemire's check
# may change, which the fast engine reads through the stream's own calls
# (tests/engines/test_deep_dive_golden.py found them).
LEMIRE_SEEDS = (92511, 116484, 1871975, 2006283)
ODD_ACTIONS = ({"type": "STAY"}, {"type": "stay", "extra": 1}, "leave", None, {"type": 0})


def _source(kind: str, seed: int):
    if kind == "keyed":
        return None                                  # the default: KeyedRandom(seed)
    if kind == "keyed_by_calls":
        return MethodsOnly(KeyedRandom(seed))
    return random.Random(seed)


def _snapshot(state, num_players: int) -> str:
    seats = range(num_players)
    return json.dumps([state.to_act(), state.is_terminal(), [state.legal_actions(seat) for seat in seats],
                       [state.observation(seat) for seat in seats], state.spectator_view(), state.full_view(),
                       state.result() if state.is_terminal() else None], sort_keys=True)


def _choose(policy: str, seat: int, state, chooser: random.Random) -> dict:
    legal = state.legal_actions(seat)
    if policy == "always_stay":
        return legal[0]
    if policy == "heuristic" or (policy == "heuristic_vs_random" and seat == 0):
        return heuristic_bot(state.observation(seat), legal, chooser)
    action = chooser.choice(legal)
    return dict(action) if chooser.random() < 0.5 else action     # a bot's answer is a plain dict


def play_both(num_players: int, seed: int, policy: str, source: str) -> tuple[str, int]:
    """Plays one game on both engines, asserting they agree at every step; returns why it ended
    and how many decisions it took."""
    fast = FAST.new_state(num_players=num_players, seed=seed, rng=_source(source, seed))
    reference = REFERENCE.new_state(num_players=num_players, seed=seed, rng=_source(source, seed))
    chooser = random.Random(seed)
    step = 0
    while True:
        expected = _snapshot(reference, num_players)
        assert _snapshot(fast, num_players) == expected, (num_players, seed, policy, source, step)
        if reference.is_terminal():
            return reference.result()["end_reason"], step
        if step % 7 == 3:
            # An illegal answer changes neither engine, and both refuse it.
            odd = {seat: chooser.choice(ODD_ACTIONS) for seat in reference.to_act()}
            for state in (fast, reference):
                with pytest.raises(IllegalAction):
                    state.apply(odd)
                assert _snapshot(state, num_players) == expected
        if step == 2 and seed % 4 == 0:
            fast, reference = fast.clone(), reference.clone()
        actions = {seat: _choose(policy, seat, reference, chooser) for seat in reference.to_act()}
        fast.apply(actions)
        reference.apply(actions)
        step += 1


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_fast_engine_plays_every_step_as_the_readable_rules_do(num_players, policy, source):
    ends = Counter(play_both(num_players, seed, policy, source)[0] for seed in range(GAMES[policy]))
    assert sum(ends.values()) == GAMES[policy]
    if policy == "random":
        assert {"black_pearls", "supply_empty"} <= set(ends), ends


def test_the_engines_agree_on_a_game_that_reaches_the_round_limit():
    # Every diver always staying: a round ends only when the shark has scared every diver, and
    # their shells go back, so a game runs to the 30-round limit unless the supply runs dry first.
    ends = []
    for seed in range(40):
        ends.append(play_both(3, seed, "always_stay", "keyed")[0])
        if ends[-1] == "round_limit":
            break
    assert ends[-1] == "round_limit", ends


@pytest.mark.parametrize("seed", LEMIRE_SEEDS)
def test_the_engines_agree_where_the_fast_one_leaves_its_word_arithmetic_for_the_streams_calls(seed):
    play_both(4, seed, "random", "keyed")


if __name__ == "__main__":
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 10     # times the suite's number of games
    totals: Counter = Counter()
    for num_players in (2, 3, 4):
        for policy in POLICIES:
            for source in SOURCES:
                for seed in range(scale * GAMES[policy]):
                    reason, steps = play_both(num_players, seed, policy, source)
                    totals["games"] += 1
                    totals[reason] += 1
                    totals["decisions"] += steps
    print(f"the engines agree at every step: {dict(totals)}")
