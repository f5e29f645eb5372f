"""Helpers for the Dive engine tests: scripted deals and whole rounds through the public API."""

from __future__ import annotations

from engines import get_game
from engines.rng import ScriptedRandom

GAME = get_game("dive")
# The card table of dive.md 2.1, copied here on purpose: the tests do not trust the engine's copy.
# id -> (creatures "<cell><S/T/M>", haze)
PRINTED = {
    0: ("", 1), 1: ("", 2), 2: ("", 1), 3: ("", 2), 4: ("", 1), 5: ("", 2),
    6: ("0S", 2), 7: ("4S", 1), 8: ("1S", 2), 9: ("8S", 1), 10: ("5S", 2),
    11: ("2T", 1), 12: ("4T", 2), 13: ("7T", 1), 14: ("0T", 2), 15: ("3T", 1), 16: ("6T", 2),
    17: ("5T", 1), 18: ("0T 8T", 2), 19: ("1T 3T", 1), 20: ("2T 4T", 2), 21: ("5T 7T", 1),
    22: ("4M", 1), 23: ("1M", 2), 24: ("6M", 1), 25: ("3M", 2), 26: ("8M", 1), 27: ("2M", 2),
    28: ("7M", 1), 29: ("2S 6T", 2), 30: ("7S 1T", 1), 31: ("3S 4T", 2), 32: ("6S 0T 2T", 1),
    33: ("1S 8M", 2), 34: ("4S 0M", 1), 35: ("0S 5M", 2),
}
SPECIES = {"S": "shark", "T": "turtle", "M": "manta"}
SHARK_CARDS = {card for card, (codes, _) in PRINTED.items() if "S" in codes}


def brute_force_view(levels) -> list:
    """The ocean view of 5.1 recomputed from scratch: turn each grid, look down through the stack."""
    grids = []
    for card, k in levels:
        grid = [[None] * 3 for _ in range(3)]
        for code in PRINTED[card][0].split():
            cell = int(code[:-1])
            grid[cell // 3][cell % 3] = SPECIES[code[-1]]
        for _ in range(k):  # a clockwise quarter turn: (row, col) -> (col, 2 - row)
            grid = [[grid[2 - col][row] for col in range(3)] for row in range(3)]
        grids.append((grid, PRINTED[card][1]))
    view = []
    for cell in range(9):
        tint, entry = 0, None
        for grid, haze in grids:
            tint += haze
            species = grid[cell // 3][cell % 3]
            if species is not None:
                entry = {"species": species, "tint": tint}
                break
        view.append(entry)
    return view


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
