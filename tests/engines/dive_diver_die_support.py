"""Helpers for the Dive! Diver! Die! engine tests: scripted setups and short-hand actions."""

from __future__ import annotations

from engines import get_game
from engines.rng import ScriptedRandom

GAME = get_game("dive_diver_die")
# The clue layout of the rules file's worked example (§8): d1..d6, then the supply.
EXAMPLE_CLUES = ["T3", "D5", "T6", "D4", "T2", "D6", "D2", "D3", "T4", "T5"]


def setup_script(num_players, removed=None, events=(), oxygenator=(), clues=EXAMPLE_CLUES, jewel=True):
    """Scripted outcomes of §3 setup: removed cards per seat, event deck top, Oxygenator top, clues."""
    removed = removed or [[1, 2]] * num_players
    script = [list(pair) for pair in removed] + [list(events), list(oxygenator)]
    if jewel:
        script.append(list(clues))
    return script


def new_game(num_players, script, jewel=True, fallback=None):
    """A new game whose chance follows ``script`` (then ``fallback`` seeded chance, if given)."""
    rng = ScriptedRandom(script, fallback=fallback)
    return GAME.new_state(num_players=num_players, seed=0, options={"jewel": jewel}, rng=rng)


def act(state, seat, action):
    """Apply ``action`` for ``seat``, which must be the only seat to act."""
    assert state.to_act() == [seat], f"expected seat {seat} to act, got {state.to_act()}"
    assert action in state.legal_actions(seat), f"{action} not in {state.legal_actions(seat)}"
    state.apply({seat: action})


def prepare(state, *pairs):
    """P3 for every seat: ``pairs[i] = (oxygen card, duration card)``."""
    state.apply({seat: {"type": "prepare", "oxygen": a, "duration": b} for seat, (a, b) in enumerate(pairs)})


def choose_depths(state, *depths):
    """P5: ``depths[i]`` for seat i, asked in the engine's order (start player first)."""
    for _ in depths:
        seat = state.to_act()[0]
        act(state, seat, {"type": "choose_depth", "depth": depths[seat]})


def duration(state, seat, turns):
    act(state, seat, {"type": "choose_duration", "turns": turns})


def end_window(state, seat):
    act(state, seat, {"type": "end_window"})


def play(state, seat, card, **params):
    act(state, seat, {"type": "play_event", "card": card, **params})


def bonus(state, seat, kind):
    act(state, seat, {"type": "choose_bonus", "bonus": kind})


def player(state, seat):
    """The public record of one seat, as every seat sees it."""
    return state.spectator_view()["players"][seat]


def private(state, seat):
    """The ``you`` block of a seat's own observation."""
    return state.observation(seat)["you"]


def start_dive(num_players, *, prepares, depths, events=(), oxygenator=(10,), removed=None,
               clues=EXAMPLE_CLUES, common=(), dice=(5, 5), rolls=(), after=(), jewel=True,
               fallback=None):
    """A game scripted through dive 1's P1..P6: returns the state at its first dive decision.

    ``prepares[i]`` = (oxygen card, duration card) of seat i; ``common`` the order of the common
    oxygen deck (a prefix); ``rolls`` the following oxygen-die faces; ``after`` more outcomes.
    """
    script = setup_script(num_players, removed=removed, events=events, oxygenator=oxygenator,
                          clues=clues, jewel=jewel)
    script += [list(common), dice[0], dice[1]] + list(rolls) + list(after)
    state = new_game(num_players, script, jewel=jewel, fallback=fallback)
    prepare(state, *prepares)
    choose_depths(state, *depths)
    return state


def decision(state):
    return state.spectator_view()["decision"]


def pass_windows(state):
    """Answer ``end_window`` to every event window until another kind of decision (or the end).

    Returns the seats whose windows were closed, in order.
    """
    closed = []
    while not state.is_terminal() and decision(state) == "event_window":
        closed.append(state.to_act()[0])
        end_window(state, closed[-1])
    return closed


def log(state):
    """The public record of the current dive."""
    return state.spectator_view()["dive_log"]


def history(state):
    """The public record of the whole game (full view)."""
    return state.full_view()["history"]


def answer(state):
    """One plain answer to whatever is asked: end windows, shortest duration, gold, first prepare."""
    seats = state.to_act()
    kind = decision(state)
    if kind == "prepare":
        state.apply({s: state.legal_actions(s)[0] for s in seats})
        return
    seat = seats[0]
    if kind == "event_window":
        end_window(state, seat)
    elif kind == "choose_duration":
        duration(state, seat, 1)
    elif kind == "choose_bonus":
        bonus(state, seat, "gold")
    else:
        act(state, seat, state.legal_actions(seat)[0])


def finish_dive(state):
    """Answer every decision with :func:`answer` until the next dive (or the game end) begins."""
    dive = state.spectator_view()["dive"]
    while not state.is_terminal() and state.spectator_view()["dive"] == dive:
        answer(state)
