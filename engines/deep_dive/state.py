"""The Deep Dive position and its rules (/work/shared/rules/deep_dive.md = docs/rules/deep_dive.md).

Flow (section 4): every chance step (R1, C1-C4, C6-C8, R-end) runs inside ``new_state``
and ``apply``; the only decision is the simultaneous stay-or-leave at C5, asked of every
diver still in the water. Chance comes only from ``self.rng``, in this order:

* setup: ``shuffle(supply)`` once (index 0 is the top);
* each cycle: ``choice(COLOURS)`` for each diver in the water, in seat order from the start
  player (C1); then, unless the supply ran out, ``choice(COLOURS)`` for the shark (C3);
  then ``shuffle(supply)`` once if at least one scared diver returned shells.

Hidden information (section 5): the content of closed shells (their owner included) and
the order of the supply; observations and the spectator view show counts only.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from types import MappingProxyType

from engines.core import GameState, IllegalAction, ranks_from_scores

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
# Shells taken in each section, by colour (D1, D2).
SHELLS = MappingProxyType({"red": 1, "orange": 1, "yellow": 2, "green": 2, "blue": 3, "purple": 3})
WHITE, BLACK, EMPTY = "white", "black", "empty"
TOKENS_WHITE, TOKENS_BLACK, TOKENS_EMPTY = 40, 5, 15      # the 4-player mix (D4)
WHITES_REMOVED = MappingProxyType({2: 10, 3: 5, 4: 0})     # setup step 1
BLACK_PEARLS_TO_END = 4
ROUND_LIMIT = 30                                           # D11

# ORDERS[n][s]: seat order from start player s in an n-player game: s, s+1, ..., s+n-1 (mod n).
ORDERS = tuple(tuple(tuple((s + i) % n for i in range(n)) for s in range(n)) for n in range(5))

DIVING, SCARED, LEFT = "diving", "scared", "left"
END_BLACK, END_SUPPLY, END_ROUNDS = "black_pearls", "supply_empty", "round_limit"


class DeepDiveState(GameState):
    """A Deep Dive game: always either waiting at C5 for the divers in the water, or over."""

    def __init__(self, num_players: int, seed: int, options: dict, rng):
        super().__init__(num_players, seed, options, rng)
        n = num_players
        self._orders = ORDERS[n]
        whites = TOKENS_WHITE - WHITES_REMOVED[n]
        self.whites_removed = WHITES_REMOVED[n]
        self.supply = [WHITE] * whites + [BLACK] * TOKENS_BLACK + [EMPTY] * TOKENS_EMPTY
        self.rng.shuffle(self.supply)
        # Unopened tokens (supply + closed shells), by content: white, black, empty.
        self.unopened_white, self.unopened_black, self.unopened_empty = whites, TOKENS_BLACK, TOKENS_EMPTY
        self.white = [0] * n
        self.black_found = [0] * n
        self.in_water = [False] * n
        self.status = ["shore"] * n
        self.position = [None] * n
        self.closed = [[] for _ in range(n)]
        self.black_pile = 0
        self.empties_removed = 0
        self.rounds_completed = 0
        self.round = 1
        self.cycle = 1
        self.start_player = 0                              # D12
        self.last_rolls: dict[int, str] = {}
        self.last_shark: str | None = None
        # One entry per cycle played: (round, cycle, start player, {seat: colour}, shark or None).
        self.history: list[tuple] = []
        self.end_reason: str | None = None
        self._acting: list[int] = []
        self._run(None)

    # --- the rules ----------------------------------------------------------------------
    def _run(self, water: list[int] | None) -> None:
        """Plays chance steps up to the next C5 decision or the end of the game.

        ``water`` lists the seats still in the water (ascending) when a cycle goes on at C1;
        ``None`` starts a new round at R1.
        """
        rng = self.rng
        choice = rng.choice
        supply = self.supply
        closed = self.closed
        in_water = self.in_water
        position = self.position
        n = self.num_players
        while True:
            if water is None:
                # R1: every diver enters the water.
                self.cycle = 1
                water = list(range(n))
                in_water[:] = [True] * n
                position[:] = [None] * n
                self.status[:] = [DIVING] * n
                closed[:] = [[] for _ in water]
            order = self._orders[self.start_player]
            # C1: dive step, in seat order from the start player; every diver in the water
            # rolls, so this cycle's rolls are exactly the positions of the divers in the water.
            rolls = {}
            for seat in order:
                if in_water[seat]:
                    colour = choice(COLOURS)
                    rolls[seat] = colour
                    position[seat] = colour
                    if supply:
                        k = SHELLS[colour]
                        closed[seat] += supply[:k]
                        del supply[:k]
            self.last_rolls = rolls
            # C2: an empty supply ends the game before the shark (D7).
            if not supply:
                self.last_shark = None
                self.history.append((self.round, self.cycle, self.start_player, rolls, None))
                self._final_surfacing(END_SUPPLY)
                return
            # C3: the shark scares every diver in the rolled section (D3, D6, D10).
            shark = choice(COLOURS)
            self.last_shark = shark
            self.history.append((self.round, self.cycle, self.start_player, rolls, shark))
            if shark in rolls.values():
                returned = False
                status = self.status
                for seat in order:
                    if rolls.get(seat) == shark:
                        if closed[seat]:
                            supply += closed[seat]
                            closed[seat] = []
                            returned = True
                        in_water[seat] = False
                        position[seat] = None
                        status[seat] = SCARED
                if returned:
                    rng.shuffle(supply)
                water = [seat for seat in water if in_water[seat]]
                # C4: nobody left in the water ends the round.
                if not water:
                    if self._end_round():
                        return
                    water = None
                    continue
            # C5: the divers in the water decide.
            self._acting = water
            return

    def _end_round(self) -> bool:
        """R-end: counts the round; True when the round limit ended the game."""
        self.rounds_completed += 1
        if self.rounds_completed >= ROUND_LIMIT:
            self.end_reason = END_ROUNDS
            self._acting = []
            return True
        self.start_player = (self.start_player + 1) % self.num_players
        self.round += 1
        return False

    def _surface(self, seat: int) -> None:
        """C6 for one diver: leaves the water and opens every closed shell."""
        shells = self.closed[seat]
        whites = shells.count(WHITE)
        blacks = shells.count(BLACK)
        empties = len(shells) - whites - blacks
        self.white[seat] += whites
        self.black_found[seat] += blacks
        self.black_pile += blacks
        self.empties_removed += empties
        self.unopened_white -= whites
        self.unopened_black -= blacks
        self.unopened_empty -= empties
        self.closed[seat] = []
        self.in_water[seat] = False
        self.position[seat] = None
        self.status[seat] = LEFT

    def _final_surfacing(self, reason: str) -> None:
        """Section 6, cases a and b: every diver still in the water surfaces and scores (D9)."""
        for seat in self._orders[self.start_player]:
            if self.in_water[seat]:
                self._surface(seat)
        self.end_reason = reason
        self._acting = []

    # --- engine API (overridden for speed; same contract as the base class) -------------
    def to_act(self) -> list[int]:
        """Seats whose diver is in the water at C5, ascending; ``[]`` exactly when the game is over."""
        return self._acting[:]

    def is_terminal(self) -> bool:
        """True once the game has ended (black pearls, empty supply or round limit)."""
        return not self._acting

    def legal_actions(self, seat: int) -> list[dict]:
        """``[stay, leave]`` for a diver in the water at C5, ``[]`` for any other seat."""
        if seat in self._acting:
            # Fresh dicts on every call: a caller that mutates them cannot touch the engine.
            return [{"type": "stay"}, {"type": "leave"}]
        return []

    def apply(self, actions: Mapping) -> None:
        """Applies the simultaneous stay/leave choices; IllegalAction changes nothing."""
        if type(actions) is not dict and not isinstance(actions, Mapping):
            raise IllegalAction("apply() takes a mapping {seat: action}")
        acting = self._acting
        if not acting:
            raise IllegalAction("the game is over")
        # As many keys as seats to act, and every one of them present: the key set is to_act().
        if len(actions) != len(acting):
            raise IllegalAction(f"expected actions for seats {acting}, got {sorted(actions, key=str)}")
        leaving = []
        for seat in acting:
            if seat not in actions:
                raise IllegalAction(f"expected actions for seats {acting}, got {sorted(actions, key=str)}")
            action = actions[seat]
            # Plain one-key dicts (the usual case) are checked without building the legal list.
            if type(action) is dict and len(action) == 1:
                choice = action.get("type")
            elif action == {"type": "leave"} or action == {"type": "stay"}:
                choice = action["type"]
            else:
                choice = None
            if choice == "leave":
                leaving.append(seat)
            elif choice != "stay":
                raise IllegalAction(f"seat {seat}: {action!r} is not a legal action")
        self._apply_choices(leaving)

    def _apply_choices(self, leaving: list[int]) -> None:
        water = self._acting
        if leaving:
            # C6: every leaving diver surfaces and opens its shells.
            for seat in leaving:
                self._surface(seat)
            # C7: the fourth black pearl ends the game.
            if self.black_pile >= BLACK_PEARLS_TO_END:
                self._final_surfacing(END_BLACK)
                return
            water = [seat for seat in water if seat not in leaving]
            # C8: nobody left in the water ends the round.
            if not water:
                if self._end_round():
                    return
                self._run(None)
                return
        # C8: the divers who stayed dive again.
        self.cycle += 1
        self._run(water)

    def clone(self) -> "DeepDiveState":
        """An independent copy (explicit, faster than a deep copy); the RNG is copied too."""
        twin = object.__new__(type(self))
        fields = self.__dict__.copy()
        if type(self.rng) is random.Random:
            # getstate/setstate copies the generator exactly, without deepcopy's slow walk of
            # its 625-word state.
            twin_rng = random.Random(0)
            twin_rng.setstate(self.rng.getstate())
            fields["rng"] = twin_rng
        else:
            fields["rng"] = copy.deepcopy(self.rng)
        fields["options"] = dict(self.options)
        for name in ("supply", "white", "black_found", "in_water", "status", "position",
                     "history", "_acting"):
            fields[name] = fields[name][:]
        fields["closed"] = [shells[:] for shells in self.closed]
        fields["last_rolls"] = dict(self.last_rolls)
        twin.__dict__ = fields
        return twin

    # --- hooks of the base class (used by anything that calls them directly) ------------
    def _to_act(self) -> list[int]:
        return self._acting[:]

    def _legal_actions(self, seat: int) -> list[dict]:
        return [{"type": "stay"}, {"type": "leave"}]

    def _apply(self, actions: dict) -> None:
        self._apply_choices([seat for seat in self._acting if actions[seat] == {"type": "leave"}])

    def _result(self) -> dict:
        scores = list(self.white)
        return {"scores": scores, "ranks": ranks_from_scores(scores), "end_reason": self.end_reason}

    # --- views ----------------------------------------------------------------------------
    def _public(self) -> dict:
        closed = self.closed
        return {
            "round": self.round,
            "cycle": self.cycle,
            "start_player": self.start_player,
            "num_players": self.num_players,
            "sections": [{"colour": colour, "shells": SHELLS[colour]} for colour in COLOURS],
            "players": [
                {"in_water": self.in_water[seat], "status": self.status[seat],
                 "position": self.position[seat], "closed_shells": len(closed[seat]),
                 "white_pearls": self.white[seat], "black_found": self.black_found[seat]}
                for seat in range(self.num_players)
            ],
            "last_colour_rolls": {str(seat): self.last_rolls[seat] for seat in sorted(self.last_rolls)},
            "last_shark_roll": self.last_shark,
            "black_pile": self.black_pile,
            "empties_removed": self.empties_removed,
            "supply_size": len(self.supply),
            "unopened": {"white": self.unopened_white, "black": self.unopened_black,
                         "empty": self.unopened_empty},
            "round_limit": ROUND_LIMIT,
        }

    def observation(self, seat: int) -> dict:
        """Section 5: public information only; closed shells are counts, even one's own."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        return {"seat": seat, **self._public()}

    def spectator_view(self) -> dict:
        """The public view plus who is to act and, once over, why the game ended."""
        view = self._public()
        view["to_act"] = self._acting[:]
        view["game_over"] = not self._acting
        view["end_reason"] = self.end_reason
        return view

    def full_view(self) -> dict:
        """Everything: supply order, closed shell contents and every roll of the game."""
        view = self.spectator_view()
        for seat, player in enumerate(view["players"]):
            player["closed"] = list(self.closed[seat])
        view["supply"] = list(self.supply)
        view["whites_removed_at_setup"] = self.whites_removed
        view["rounds_completed"] = self.rounds_completed
        view["history"] = [
            {"round": rnd, "cycle": cyc, "start_player": start,
             "colour_rolls": {str(seat): rolls[seat] for seat in sorted(rolls)}, "shark_roll": shark}
            for rnd, cyc, start, rolls, shark in self.history
        ]
        return view
