"""Deep Dive's readable rules engine: the rules file (docs/rules/deep_dive.md) clause by clause.

The platform plays :mod:`engines.deep_dive.state`, a tuned hot loop. This engine is the same game
written for the reader: one method per step of the rules' flow (R1, C1..C8, R-end, the final
surfacing of section 6), the state in named fields, nothing precomputed, no speed taken into
account. It offers the same API (``GAME.new_state``, ``to_act``, ``legal_actions``, ``apply``,
``observation``, the views and ``result``), and its own constants are copied from the rules, not
imported from the fast engine, so that a slip in either shows up as a difference between them.
tests/engines/test_deep_dive_reference.py plays thousands of games on both and requires every
step's views, legal actions and result to be equal; tests/engines/test_deep_dive.py pins the
rules' worked examples and decisions on both.

Chance: the supply is a bag (D10): counts of white, black and empty tokens, each token taken
uniformly from what is left, scared shells put back with no reshuffle. Every chance outcome
comes from the state's seeded source, at the place the fast engine's docstring gives it:

* the dive step of cycle c of round r reads stream ("round", r) from draw 16(c - 1): four
  draws for each seat in seat order from the round's start player, its colour die
  (``choice(COLOURS)``) and then its k shells (``sample(TOKENS, k, counts=bag)``, one draw
  each), the draws a seat does not use skipped (all four for a seat out of the water);
* the shark of cycle c of round r is draw c - 1 of stream ("shark", r), ``choice(COLOURS)``.

Hidden information (section 5): the content of closed shells (their owner's too) and of the
supply. Observations and the spectator view show counts only. When several divers open their
shells at once, ``surface`` events come in ascending seat order at C6 and in seat order from the
start player at the final surfacing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.core import Game, GameState
from engines.deep_dive import BOTS, FACTS, INFO

# Section 2 (D1, D2): the six sections, one per face of the colour die, and their shells.
SECTIONS = (("red", 1), ("orange", 1), ("yellow", 2), ("green", 2), ("blue", 3), ("purple", 3))
COLOURS = tuple(colour for colour, _ in SECTIONS)          # both dice's faces (D3)
SHELLS = dict(SECTIONS)
WHITE, BLACK, EMPTY = "white", "black", "empty"
TOKENS = (WHITE, BLACK, EMPTY)                             # the bag's order of draws (D10)
TOKEN_MIX = {WHITE: 40, BLACK: 5, EMPTY: 15}               # D4, the 4-player mix
WHITES_REMOVED = {2: 10, 3: 5, 4: 0}                       # setup step 1
BLACK_PEARLS_TO_END = 4                                    # C7, section 6 (a)
ROUND_LIMIT = 30                                           # D11
DRAWS_PER_SEAT = 4                                         # a colour, then at most three shells
DRAWS_PER_CYCLE = 16                                       # one word block of the round's stream

DIVING, SCARED, LEFT = "diving", "scared", "left"
STAY, LEAVE = "stay", "leave"
END_BLACK, END_SUPPLY, END_ROUNDS = "black_pearls", "supply_empty", "round_limit"


@dataclass
class Diver:
    """One player: its diver and what it has found (setup step 3, R1)."""

    in_water: bool = False
    status: str = DIVING
    position: str | None = None
    closed: list[str] = field(default_factory=list)       # in the order taken, content hidden
    white_pearls: int = 0
    black_found: int = 0


class ReferenceDeepDiveState(GameState):
    """A Deep Dive game, waiting at C5 for the divers in the water, or over."""

    def __init__(self, num_players: int, seed: int, options: dict, rng: Any):
        super().__init__(num_players, seed, options, rng)
        # Setup (section 3): the supply without the removed whites, every diver on shore.
        self.whites_removed = WHITES_REMOVED[num_players]
        self.supply = dict(TOKEN_MIX)
        self.supply[WHITE] -= self.whites_removed
        self.divers = [Diver() for _ in range(num_players)]
        self.start_player = 0
        self.round = 1
        self.cycle = 1
        self.rounds_completed = 0
        self.black_pile = 0
        self.empties_removed = 0
        self.last_colour_rolls: dict[int, str] = {}
        self.last_shark_roll: str | None = None
        self.deciding: list[int] = []                      # the seats asked at C5
        self.end_reason: str | None = None
        self.events: list[dict] = []                       # the public log, as observations show it
        self.history: list[dict] = []                      # every cycle's rolls (the full view)
        self.start_round()
        self.play_until_decision()

    # --- section 4: the flow ----------------------------------------------------------------
    def start_round(self) -> None:
        """R1: every diver enters the water with no closed shell."""
        self.cycle = 1
        for diver in self.divers:
            diver.in_water, diver.status, diver.position, diver.closed = True, DIVING, None, []

    def seat_order(self) -> list[int]:
        """Seat order from the round's start player s: s, s+1, ..., s+n-1 (mod n)."""
        n = self.num_players
        return [(self.start_player + i) % n for i in range(n)]

    def in_water(self) -> list[int]:
        """The seats whose diver is in the water, ascending."""
        return [seat for seat, diver in enumerate(self.divers) if diver.in_water]

    def supply_size(self) -> int:
        return sum(self.supply.values())

    def play_until_decision(self) -> None:
        """Cycles from C1 on, until some diver is to decide at C5 or the game is over."""
        while True:
            self.dive_step()                                              # C1
            if self.supply_size() == 0:                                   # C2 (D7)
                self.record_cycle()
                self.final_surfacing(END_SUPPLY)
                return
            self.shark_step()                                             # C3
            if not self.in_water():                                       # C4
                if self.end_round():
                    return
                continue
            self.deciding = self.in_water()                               # C5
            return

    def dive_step(self) -> None:
        """C1: each diver in the water, in seat order from the start player, rolls the colour die,
        moves to that section (D6) and takes its shells from the bag, or what is left (D7)."""
        draws = self.rng.stream("round", self.round)
        draws.skip(DRAWS_PER_CYCLE * (self.cycle - 1))
        self.last_colour_rolls = {}
        self.last_shark_roll = None
        for seat in self.seat_order():
            diver = self.divers[seat]
            if not diver.in_water:
                draws.skip(DRAWS_PER_SEAT)
                continue
            colour = draws.choice(COLOURS)
            diver.position = colour
            self.last_colour_rolls[seat] = colour
            k = min(SHELLS[colour], self.supply_size())
            if k:
                counts = [self.supply[token] for token in TOKENS]
                for token in draws.sample(TOKENS, k, counts=counts):
                    self.supply[token] -= 1
                    diver.closed.append(token)
            draws.skip(DRAWS_PER_SEAT - 1 - k)

    def shark_step(self) -> None:
        """C3: the shark die scares every diver in the water at the rolled colour; its closed
        shells go back into the bag (D10: no order, so no reshuffle)."""
        draws = self.rng.stream("shark", self.round)
        draws.skip(self.cycle - 1)
        shark = draws.choice(COLOURS)
        self.last_shark_roll = shark
        self.record_cycle()
        for seat in self.seat_order():
            diver = self.divers[seat]
            if diver.in_water and diver.position == shark:
                for token in diver.closed:
                    self.supply[token] += 1
                diver.in_water, diver.status, diver.position, diver.closed = False, SCARED, None, []

    def record_cycle(self) -> None:
        """The cycle's public record: its rolls, its shark (None when C2 ended the game) and who
        the shark scared."""
        rolls = {str(seat): self.last_colour_rolls[seat] for seat in sorted(self.last_colour_rolls)}
        record = {"round": self.round, "cycle": self.cycle, "start_player": self.start_player,
                  "colour_rolls": rolls, "shark_roll": self.last_shark_roll}
        self.history.append(fresh(record))
        scared = [seat for seat in sorted(self.last_colour_rolls)
                  if self.last_colour_rolls[seat] == self.last_shark_roll]
        self.events.append({"type": "cycle", **record, "scared": scared})

    def _apply(self, choices: dict[int, Any]) -> None:
        """C5's simultaneous choices applied at C6, then C7, C8 and the chance up to the next C5."""
        leaving = [seat for seat in self.deciding if choices[seat]["type"] == LEAVE]
        self.events.append({"type": "choices", "stayed": [s for s in self.deciding if s not in leaving],
                            "left": leaving})
        self.deciding = []
        for seat in leaving:                                              # C6
            self.surface(seat)
        if self.black_pile >= BLACK_PEARLS_TO_END:                        # C7
            self.final_surfacing(END_BLACK)
            return
        if self.in_water():                                               # C8
            self.cycle += 1
        elif self.end_round():
            return
        self.play_until_decision()

    def surface(self, seat: int) -> None:
        """C6 (and the final surfacing): the diver leaves the water and opens its shells: a white
        is a white pearl, a black goes to the black pile, an empty leaves the game."""
        diver = self.divers[seat]
        opened = {token: diver.closed.count(token) for token in TOKENS}
        diver.white_pearls += opened[WHITE]
        diver.black_found += opened[BLACK]
        self.black_pile += opened[BLACK]
        self.empties_removed += opened[EMPTY]
        diver.in_water, diver.status, diver.position, diver.closed = False, LEFT, None, []
        self.events.append({"type": "surface", "seat": seat, **opened})

    def end_round(self) -> bool:
        """R-end: count the round; after the 30th the game is over (True), else the next start
        player begins a new round at R1 (D12)."""
        self.rounds_completed += 1
        self.events.append({"type": "round_end", "round": self.round})
        if self.rounds_completed == ROUND_LIMIT:
            self.end_game(END_ROUNDS)
            return True
        self.start_player = (self.start_player + 1) % self.num_players
        self.round += 1
        self.start_round()
        return False

    def final_surfacing(self, reason: str) -> None:
        """Section 6, cases a and b: every diver still in the water surfaces and opens (D9)."""
        for seat in self.seat_order():
            if self.divers[seat].in_water:
                self.surface(seat)
        self.end_game(reason)

    def end_game(self, reason: str) -> None:
        self.end_reason = reason
        self.deciding = []
        self.events.append({"type": "game_end", "reason": reason})

    # --- the engine API ------------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        return list(self.deciding)

    def _legal_actions(self, seat: int) -> list[dict]:
        return [{"type": STAY}, {"type": LEAVE}]

    def _result(self) -> dict:
        """Section 6: score = white pearls; rank = 1 + the seats with strictly more."""
        scores = [diver.white_pearls for diver in self.divers]
        ranks = [1 + sum(other > mine for other in scores) for mine in scores]
        return {"scores": scores, "ranks": ranks, "end_reason": self.end_reason}

    def public_view(self) -> dict:
        """Section 5: everything but the content of closed shells and of the supply."""
        unopened = dict(self.supply)                      # supply and closed shells, by content
        for diver in self.divers:
            for token in diver.closed:
                unopened[token] += 1
        return {
            "round": self.round,
            "cycle": self.cycle,
            "start_player": self.start_player,
            "num_players": self.num_players,
            "sections": [{"colour": colour, "shells": shells} for colour, shells in SECTIONS],
            "players": [{"in_water": diver.in_water, "status": diver.status, "position": diver.position,
                         "closed_shells": len(diver.closed), "white_pearls": diver.white_pearls,
                         "black_found": diver.black_found} for diver in self.divers],
            "last_colour_rolls": {str(seat): self.last_colour_rolls[seat] for seat in sorted(self.last_colour_rolls)},
            "last_shark_roll": self.last_shark_roll,
            "black_pile": self.black_pile,
            "empties_removed": self.empties_removed,
            "supply_size": self.supply_size(),
            "unopened": unopened,
            "round_limit": ROUND_LIMIT,
        }

    def observation(self, seat: int) -> dict:
        """The public view for ``seat``, with the public events since its previous decision (the
        choices of that C5 first), or since the start of the game before its first one."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        first = 0
        for index, event in enumerate(self.events):
            if event["type"] == "choices" and seat in event["stayed"] + event["left"]:
                first = index
        return {"seat": seat, **self.public_view(), "events": [fresh(event) for event in self.events[first:]]}

    def spectator_view(self) -> dict:
        """The public view, who is to act and, once over, why the game ended."""
        return {**self.public_view(), "to_act": list(self.deciding), "game_over": not self.deciding,
                "end_reason": self.end_reason}

    def full_view(self) -> dict:
        """Everything: closed shells' contents, the supply and every roll of the game."""
        view = self.spectator_view()
        for player, diver in zip(view["players"], self.divers):
            player["closed"] = list(diver.closed)
        view["supply"] = dict(self.supply)
        view["whites_removed_at_setup"] = self.whites_removed
        view["rounds_completed"] = self.rounds_completed
        view["history"] = [fresh(record) for record in self.history]
        return view


def fresh(record: dict) -> dict:
    """A copy of a log record that its receiver may change: its values are scalars, or flat lists
    and dicts of scalars."""
    return {key: value.copy() if isinstance(value, (list, dict)) else value for key, value in record.items()}


GAME = Game(INFO, ReferenceDeepDiveState, BOTS, FACTS)
