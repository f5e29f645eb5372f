"""The Deep Dive position and its rules (/work/shared/rules/deep_dive.md = docs/rules/deep_dive.md).

Flow (section 4): every chance step (R1, C1-C4, C6-C8, R-end) runs inside ``new_state``
and ``apply``; the only decision is the simultaneous stay-or-leave at C5, asked of every
diver still in the water.

The supply is a bag (D10): counts of white, black and empty tokens, with no order; a diver
takes each token uniformly at random from what is left, and shells scared back go into the
bag with no reshuffle. Chance is keyed by where it sits (engines.rng), so a seat slot meets
the same chance whatever the other seats chose:

* cycle c of round r takes draws 16(c - 1) to 16c - 1 of stream ("round", r): four for each
  seat in seat order from the round's start player (fixed for the round), ``choice(COLOURS)``
  for its colour die (C1) and ``sample(TOKENS, k, counts=bag)`` for its k shells (one draw
  per shell; a draw finds its token in the order white, black, empty), the unused ones
  skipped (a seat out of the water skips all four), the rest of the 16 unused;
* the shark of cycle c of round r (C3) is draw c - 1 of stream ("shark", r), ``choice(COLOURS)``.

So seat s's dive in cycle c of round r always sits at the same draws.

A scripted source sees, per cycle: for each diver in the water in seat order from the start
player, its colour, then the list of tokens it takes (when the supply is not empty); then
the shark's colour (when the supply is not empty after the dive step).

Hidden information (section 5): the content of closed shells (their owner included) and
of the supply; observations and the spectator view show counts only.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import filterfalse
from types import MappingProxyType

from engines.core import GameState, IllegalAction, ranks_from_scores
from engines.readonly import ReadOnlyAction, ReadOnlyList
from engines.rng import MASK32, WORDS_PER_BLOCK, copy_chance

COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
# Shells taken in each section, by colour (D1, D2).
SHELLS = MappingProxyType({"red": 1, "orange": 1, "yellow": 2, "green": 2, "blue": 3, "purple": 3})
SHELLS_BY_FACE = tuple(SHELLS[colour] for colour in COLOURS)
MAX_SHELLS = 3
WHITE, BLACK, EMPTY = "white", "black", "empty"
TOKENS = (WHITE, BLACK, EMPTY)                             # the bag's order of draws
TOKENS_WHITE, TOKENS_BLACK, TOKENS_EMPTY = 40, 5, 15      # the 4-player mix (D4)
WHITES_REMOVED = MappingProxyType({2: 10, 3: 5, 4: 0})     # setup step 1
BLACK_PEARLS_TO_END = 4
ROUND_LIMIT = 30                                           # D11

# ORDERS[n][s]: seat order from start player s in an n-player game: s, s+1, ..., s+n-1 (mod n).
ORDERS = tuple(tuple(tuple((s + i) % n for i in range(n)) for s in range(n)) for n in range(5))

DIVING, SCARED, LEFT = "diving", "scared", "left"
STAY, LEAVE = ReadOnlyAction(type="stay"), ReadOnlyAction(type="leave")
LEGAL = ReadOnlyList([STAY, LEAVE])
_MISSING = object()
END_BLACK, END_SUPPLY, END_ROUNDS = "black_pearls", "supply_empty", "round_limit"


class DeepDiveState(GameState):
    """A Deep Dive game: always either waiting at C5 for the divers in the water, or over."""

    def __init__(self, num_players: int, seed: int, options: dict, rng):
        super().__init__(num_players, seed, options, rng)
        n = num_players
        self._orders = ORDERS[n]
        whites = TOKENS_WHITE - WHITES_REMOVED[n]
        self.whites_removed = WHITES_REMOVED[n]
        # The supply, as a bag: [white, black, empty] counts (D10).
        self.bag = [whites, TOKENS_BLACK, TOKENS_EMPTY]
        self.supply_size = whites + TOKENS_BLACK + TOKENS_EMPTY
        # Unopened tokens (supply + closed shells), by content: white, black, empty.
        self.unopened_white, self.unopened_black, self.unopened_empty = whites, TOKENS_BLACK, TOKENS_EMPTY
        self.white = [0] * n
        self.black_found = [0] * n
        self.in_water = [False] * n
        self.status = ["shore"] * n
        self.closed = [[] for _ in range(n)]
        self.black_pile = 0
        self.empties_removed = 0
        self.rounds_completed = 0
        self.round = 1
        self.cycle = 1
        self.start_player = 0                              # D12
        self.last_rolls: dict[int, str] = {}
        self.last_shark: str | None = None
        # The public log, one tuple per event: ("cycle", round, cycle, start player,
        # {seat: colour}, shark or None), ("choices", seats at C5, seats leaving),
        # ("surface", seat, white, black, empty), ("round_end", round), ("game_end", reason).
        self.log: list[tuple] = []
        self.end_reason: str | None = None
        self._acting: list[int] = []
        self._round_draws = self._shark_draws = None
        self._bulk = False
        self._shark_words = ()
        self._run(None)

    # --- the rules ----------------------------------------------------------------------
    def _run(self, water: list[int] | None) -> None:
        """Plays chance steps up to the next C5 decision or the end of the game.

        ``water`` lists the seats still in the water (ascending) when a cycle goes on at C1;
        ``None`` starts a new round at R1.
        """
        closed = self.closed
        in_water = self.in_water
        while True:
            if water is None:
                # R1: every diver enters the water; the round's streams open.
                n = self.num_players
                self.cycle = 1
                water = list(range(n))
                in_water[:] = [True] * n
                self.status[:] = [DIVING] * n
                closed[:] = [[] for _ in water]
                rng = self.rng
                self._round_draws = rng.stream("round", self.round)
                self._shark_draws = rng.stream("shark", self.round)
                self._shark_words = ()
                # Keyed streams are read a block at a time (same outcomes, far fewer calls).
                self._bulk = hasattr(self._round_draws, "take")
            order = self._orders[self.start_player]
            # C1 (dive step, in seat order from the start player; every diver in the water
            # rolls, so this cycle's rolls are exactly the positions of the divers in the water)
            # and C3's shark roll, unless C2 ends the game first.
            if self._bulk:
                rolls, shark = self._roll_cycle_from_words(order)
            else:
                rolls, shark = self._roll_cycle(order)
            self.last_rolls = rolls
            self.last_shark = shark
            self.log.append(("cycle", self.round, self.cycle, self.start_player, rolls, shark))
            # C2: an empty supply ends the game before the shark (D7).
            if shark is None:
                self._final_surfacing(END_SUPPLY)
                return
            # C3: the shark scares every diver in the rolled section (D3, D6, D10).
            if shark in rolls.values():
                bag = self.bag
                status = self.status
                for seat in order:
                    if rolls.get(seat) != shark:
                        continue
                    shells = closed[seat]
                    if shells:
                        # The shells go back into the bag: no order, so no reshuffle.
                        whites = shells.count(WHITE)
                        blacks = shells.count(BLACK)
                        bag[0] += whites
                        bag[1] += blacks
                        bag[2] += len(shells) - whites - blacks
                        self.supply_size += len(shells)
                        closed[seat] = []
                    in_water[seat] = False
                    status[seat] = SCARED
                # filter, not a comprehension: no Python frame per cycle.
                water = list(filter(in_water.__getitem__, water))
                # C4: nobody left in the water ends the round.
                if not water:
                    if self._end_round():
                        return
                    water = None
                    continue
            # C5: the divers in the water decide.
            self._acting = water
            return

    def _roll_cycle(self, order: tuple) -> tuple[dict, str | None]:
        """C1 and the shark roll of C3: ({seat: colour}, shark, or None when C2 ends the game).

        Cycle c of round r takes block c - 1 of the round's stream: four draws for each seat,
        in ``order`` (its colour, then one per shell, up to three; unused ones are skipped),
        the rest of the block unused; the shark's draw is draw c - 1 of the round's shark stream.
        This is the one-call-per-draw reading, for any source (a scripted one among them).
        """
        draws = self._round_draws
        bag = self.bag
        closed = self.closed
        in_water = self.in_water
        rolls = {}
        size = self.supply_size
        for seat in order:
            if not in_water[seat]:
                draws.skip(1 + MAX_SHELLS)
                continue
            colour = draws.choice(COLOURS)
            rolls[seat] = colour
            k = min(SHELLS[colour], size)
            if k:
                taken = draws.sample(TOKENS, k, counts=bag)
                for token in taken:
                    bag[TOKENS.index(token)] -= 1
                closed[seat] += taken
                size -= k
            draws.skip(MAX_SHELLS - k)
        draws.skip(WORDS_PER_BLOCK - (1 + MAX_SHELLS) * len(order))
        self.supply_size = size
        if not size:
            return rolls, None
        return rolls, self._shark_draws.choice(COLOURS)

    def _roll_cycle_from_words(self, order: tuple) -> tuple[dict, str | None]:
        """:meth:`_roll_cycle` for keyed streams, from the cycle's block of words.

        Exactly what ``choice``, ``sample(counts=...)`` and ``skip`` give on the same streams
        (a test plays both ways): outcome = (word * n) >> 32, and ``below_at`` in the rare case
        that Lemire's check asks for it. The shark's words are taken a block at a time too:
        cycle c reads word c - 1, one cycle after the other.
        """
        draws = self._round_draws
        words = draws.take(WORDS_PER_BLOCK)
        bag = self.bag
        white, black, empty = bag
        size = white + black + empty
        closed = self.closed
        in_water = self.in_water
        rolls = {}
        at = 0
        for seat in order:
            if in_water[seat]:
                word = words[at]
                product = word * 6
                if (product & MASK32) < 6:
                    face = draws.below_at(draws.position - WORDS_PER_BLOCK + at, word, 6)
                else:
                    face = product >> 32
                rolls[seat] = COLOURS[face]
                k = SHELLS_BY_FACE[face]
                if k > size:
                    k = size
                if k:
                    shells = closed[seat]
                    i = at + 1
                    for word in words[i:i + k]:
                        product = word * size
                        if (product & MASK32) < size:
                            r = draws.below_at(draws.position - WORDS_PER_BLOCK + i, word, size)
                        else:
                            r = product >> 32
                        i += 1
                        if r < white:
                            white -= 1
                            shells.append(WHITE)
                        elif r < white + black:
                            black -= 1
                            shells.append(BLACK)
                        else:
                            empty -= 1
                            shells.append(EMPTY)
                        size -= 1
            at += 4
        bag[0] = white
        bag[1] = black
        bag[2] = empty
        self.supply_size = size
        if not size:
            return rolls, None
        draw = self.cycle - 1
        index = draw % WORDS_PER_BLOCK
        if not index:
            self._shark_words = self._shark_draws.take(WORDS_PER_BLOCK)
        word = self._shark_words[index]
        product = word * 6
        if (product & MASK32) < 6:
            return rolls, COLOURS[self._shark_draws.below_at(draw, word, 6)]
        return rolls, COLOURS[product >> 32]

    def _end_round(self) -> bool:
        """R-end: counts the round; True when the round limit ended the game."""
        self.rounds_completed += 1
        self.log.append(("round_end", self.round))
        if self.rounds_completed >= ROUND_LIMIT:
            self.end_reason = END_ROUNDS
            self.log.append(("game_end", END_ROUNDS))
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
        self.status[seat] = LEFT
        self.log.append(("surface", seat, whites, blacks, empties))

    def _final_surfacing(self, reason: str) -> None:
        """Section 6, cases a and b: every diver still in the water surfaces and scores (D9)."""
        for seat in self._orders[self.start_player]:
            if self.in_water[seat]:
                self._surface(seat)
        self.end_reason = reason
        self.log.append(("game_end", reason))
        self._acting = []

    # --- engine API (overridden for speed; same contract as the base class) -------------
    def to_act(self) -> list[int]:
        """Seats whose diver is in the water at C5, ascending; ``[]`` exactly when the game is over."""
        return self._acting[:]

    def is_terminal(self) -> bool:
        """True once the game has ended (black pearls, empty supply or round limit)."""
        return not self._acting

    def legal_actions(self, seat: int) -> list[dict]:
        """``[stay, leave]`` for a diver in the water at C5, ``[]`` for any other seat.

        The one shared read-only list (engines.readonly): changing it raises instead of
        touching the engine or other games."""
        if seat in self._acting:
            return LEGAL
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
            action = actions.get(seat, _MISSING)
            # The shared legal actions themselves (the usual case) are known by identity.
            if action is STAY:
                continue
            if action is LEAVE:
                leaving.append(seat)
                continue
            if action is _MISSING:
                raise IllegalAction(f"expected actions for seats {acting}, got {sorted(actions, key=str)}")
            if type(action) is dict and len(action) == 1:
                choice = action.get("type")
            elif action == LEAVE or action == STAY:
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
        # The lists themselves (no copies, for speed): neither is ever changed in place.
        self.log.append(("choices", water, leaving))
        if leaving:
            # C6: every leaving diver surfaces and opens its shells.
            for seat in leaving:
                self._surface(seat)
            # C7: the fourth black pearl ends the game.
            if self.black_pile >= BLACK_PEARLS_TO_END:
                self._final_surfacing(END_BLACK)
                return
            water = list(filterfalse(leaving.__contains__, water))
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
        """An independent copy (explicit, faster than a deep copy); the chance streams are copied too."""
        twin = object.__new__(type(self))
        fields = self.__dict__.copy()
        fields["rng"], (fields["_round_draws"], fields["_shark_draws"]) = copy_chance(
            self.rng, (self._round_draws, self._shark_draws))
        fields["options"] = dict(self.options)
        for name in ("bag", "white", "black_found", "in_water", "status", "log", "_acting"):
            fields[name] = fields[name][:]
        fields["closed"] = [shells[:] for shells in self.closed]
        fields["last_rolls"] = dict(self.last_rolls)
        twin.__dict__ = fields
        return twin

    # --- hooks of the base class (used by anything that calls them directly) ------------
    def _to_act(self) -> list[int]:
        return self._acting[:]

    def _legal_actions(self, seat: int) -> list[dict]:
        return LEGAL

    def _apply(self, actions: dict) -> None:
        self._apply_choices([seat for seat in self._acting if actions[seat] == LEAVE])

    def _result(self) -> dict:
        scores = list(self.white)
        return {"scores": scores, "ranks": ranks_from_scores(scores), "end_reason": self.end_reason}

    # --- views ----------------------------------------------------------------------------
    def _public(self) -> dict:
        closed = self.closed
        # A diver's position is its last roll while it stays in the water (C1 rolls every diver in it).
        position = [self.last_rolls.get(seat) if self.in_water[seat] else None
                    for seat in range(self.num_players)]
        return {
            "round": self.round,
            "cycle": self.cycle,
            "start_player": self.start_player,
            "num_players": self.num_players,
            "sections": [{"colour": colour, "shells": SHELLS[colour]} for colour in COLOURS],
            "players": [
                {"in_water": self.in_water[seat], "status": self.status[seat],
                 "position": position[seat], "closed_shells": len(closed[seat]),
                 "white_pearls": self.white[seat], "black_found": self.black_found[seat]}
                for seat in range(self.num_players)
            ],
            "last_colour_rolls": {str(seat): self.last_rolls[seat] for seat in sorted(self.last_rolls)},
            "last_shark_roll": self.last_shark,
            "black_pile": self.black_pile,
            "empties_removed": self.empties_removed,
            "supply_size": self.supply_size,
            "unopened": {"white": self.unopened_white, "black": self.unopened_black,
                         "empty": self.unopened_empty},
            "round_limit": ROUND_LIMIT,
        }

    def observation(self, seat: int) -> dict:
        """Section 5: public information only; closed shells are counts, even one's own.
        ``events`` is the public log since the seat's previous decision."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        view = {"seat": seat, **self._public()}
        view["events"] = self.events_since_decision(seat)
        return view

    def events_since_decision(self, seat: int) -> list[dict]:
        """The public log from ``seat``'s previous decision on (everyone's choices at that C5
        first), or from the start of the game before its first one: rolls, sharks, who stayed
        and who left, what opened shells held, round ends.

        Found from the log itself (the last C5 the seat took part in), so playing costs only
        the one record of the choices per decision.
        """
        log = self.log
        start = 0
        for index in range(len(log) - 1, -1, -1):
            entry = log[index]
            if entry[0] == "choices" and seat in entry[1]:
                start = index
                break
        return [_event_view(entry) for entry in log[start:]]

    def spectator_view(self) -> dict:
        """The public view plus who is to act and, once over, why the game ended."""
        view = self._public()
        view["to_act"] = self._acting[:]
        view["game_over"] = not self._acting
        view["end_reason"] = self.end_reason
        return view

    def full_view(self) -> dict:
        """Everything: the supply's content, closed shell contents and every roll of the game."""
        view = self.spectator_view()
        for seat, player in enumerate(view["players"]):
            player["closed"] = list(self.closed[seat])
        view["supply"] = dict(zip(TOKENS, self.bag))   # a bag: counts, no order (D10)
        view["whites_removed_at_setup"] = self.whites_removed
        view["rounds_completed"] = self.rounds_completed
        view["history"] = [
            {"round": rnd, "cycle": cyc, "start_player": start,
             "colour_rolls": {str(seat): rolls[seat] for seat in sorted(rolls)}, "shark_roll": shark}
            for kind, rnd, cyc, start, rolls, shark in (entry for entry in self.log if entry[0] == "cycle")
        ]
        return view


def _event_view(entry: tuple) -> dict:
    """One public log entry as an observation's ``events`` shows it."""
    kind = entry[0]
    if kind == "cycle":
        _, rnd, cyc, start, rolls, shark = entry
        return {"type": "cycle", "round": rnd, "cycle": cyc, "start_player": start,
                "colour_rolls": {str(seat): rolls[seat] for seat in sorted(rolls)}, "shark_roll": shark,
                "scared": [seat for seat in sorted(rolls) if rolls[seat] == shark]}
    if kind == "choices":
        return {"type": "choices", "stayed": [seat for seat in entry[1] if seat not in entry[2]],
                "left": list(entry[2])}
    if kind == "surface":
        return {"type": "surface", "seat": entry[1], "white": entry[2], "black": entry[3], "empty": entry[4]}
    if kind == "round_end":
        return {"type": "round_end", "round": entry[1]}
    return {"type": "game_end", "reason": entry[1]}
