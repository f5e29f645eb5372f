"""Helpers for the Dive engine tests: scripted deals and whole rounds through the public API."""

from __future__ import annotations

from engines import get_game
from engines.rng import ScriptedRandom

GAME = get_game("dive")
# From the card table of dive.md 2.1 (kept here on purpose: the tests do not trust the engine's copy).
SHARK_CARDS = {6, 7, 8, 9, 10, 29, 30, 31, 32, 33, 34, 35}


def deal(num_players: int, levels, orientations=None, companions=None, extra=(), options=None,
         fallback: int | None = 0):
    """A new game whose stack starts with the cards ``levels`` (ids, or (id, orientation) pairs).

    The initial shuffle is scripted with ``levels`` as a prefix; every one of the 36
    orientation draws is scripted (the listed ones, then 0); ``companions`` is the order of
    the companion shuffle; ``extra`` continues the script (chief die, chief tokens, ...).
    """
    cards, ks = [], []
    for level in levels:
        card, k = level if isinstance(level, tuple) else (level, 0)
        cards.append(card)
        ks.append(k)
    if orientations is not None:
        ks = list(orientations)
    ks = ks + [0] * (36 - len(ks))
    outcomes = [cards, *ks]
    if companions is not None:
        outcomes.append(list(companions))
        options = {**(options or {}), "companions": True}
    outcomes.extend(extra)
    rng = ScriptedRandom(outcomes, fallback=fallback)
    return GAME.new_state(num_players=num_players, seed=0, options=options, rng=rng)


def plan(calls, companion=None):
    """A Decision A action."""
    action = {"type": "plan", "calls": list(calls)}
    if companion is not None:
        action["companion"] = companion
    return action


def air(token_levels):
    """A Decision B action."""
    return {"type": "air", "token_levels": list(token_levels)}


def play_round(state, plans: dict, tokens: dict | None = None):
    """Plays Decision A then B; a seat without given tokens takes its first legal placement."""
    state.apply(plans)
    tokens = tokens or {}
    state.apply({seat: air(tokens[seat]) if seat in tokens else state.legal_actions(seat)[0]
                 for seat in state.to_act()})
    return state.observation(0)["last_round"]


def right_calls(state, depth: int, wrong_at: int | None = None) -> list[str]:
    """The correct calls for the top ``depth`` levels (read from full_view), one flipped if asked."""
    stack = state.full_view()["stack"]
    calls = ["shark" if card in SHARK_CARDS else "air" for card, _ in stack[:depth]]
    if wrong_at is not None:
        calls[wrong_at - 1] = "air" if calls[wrong_at - 1] == "shark" else "shark"
    return calls
