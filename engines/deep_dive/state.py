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

The engine reads keyed chance a block of words at a time, straight from the source
(``KeyedRandom.block``), and finds every outcome from its word exactly as the stream's
``choice`` and ``sample`` would; a block holding a word that Lemire's check may replace (about
one cycle in a million) is read by the stream's own calls instead. Any other source is read
one call per draw. ``apply`` is the hot path: one loop from a C5 to the next, with the state
of play in local names (the docs' "Deep Dive's speed" measures it).

Hidden information (section 5): the content of closed shells (their owner included) and
of the supply; observations and the spectator view show counts only. Divers opening their
shells at once (section 6) are reported ("surface" events) in ascending seat order at C6, in
seat order from the start player at the final surfacing. engines/deep_dive/reference.py plays
the same game written readably; tests/engines/test_deep_dive_reference.py checks this against it.
"""

from __future__ import annotations

from typing import Any
from struct import Struct
from types import MappingProxyType

from engines.core import GameState, ranks_from_scores
from engines.readonly import ReadOnlyAction, ReadOnlyList
from engines.rng import MASK32, WORDS_PER_BLOCK, KeyedRandom, block_id, copy_chance, rejected_words, stream_key

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
END_BLACK, END_SUPPLY, END_ROUNDS = "black_pearls", "supply_empty", "round_limit"

# Seats in the water are a bit mask (bit s: seat s). SEATS_OF[mask]: its seats, ascending.
SEATS_OF = tuple(tuple(seat for seat in range(4) if mask >> seat & 1) for mask in range(16))
# The same as shared read-only lists: the seats to act, which the base class's hook returns as is.
ACTING_OF = tuple(ReadOnlyList(seats) for seats in SEATS_OF)
ALL_SEATS = tuple((1 << n) - 1 for n in range(5))
# CYCLE_WORDS[n][s][mask]: how a cycle reads its block when the seats of ``mask`` are in the
# water and s is the start player. A seat's four words (colour, then up to three shells) sit at
# its place in seat order from s; the unpacker reads those of the seats in the water only (pad
# bytes over the others), and the dives list (seat, index of its first word in what it read) in
# that seat order.
def _cycle_words(n: int, start: int, mask: int) -> tuple:
    slot = 1 + MAX_SHELLS
    layout = "<"
    dives: list[tuple[int, int]] = []
    for seat in ORDERS[n][start]:
        if mask >> seat & 1:
            dives.append((seat, slot * len(dives)))
            layout += f"{slot}I"
        else:
            layout += f"{4 * slot}x"
    return Struct(layout).unpack_from, tuple(dives)


CYCLE_WORDS = tuple(tuple(tuple(_cycle_words(n, start, mask) for mask in range(1 << n))
                          for start in range(n)) for n in range(5))
# The keyed streams of round r are ("round", r) and ("shark", r): the names of their blocks,
# computed once. A round has at most SUPPLY_MAX cycles (the last diver in the water was in it
# from R1 and takes a shell in every cycle that does not end the game, never more than the
# supply held at R1), so as many blocks of the round's stream and one of its shark's per 16.
SUPPLY_MAX = TOKENS_WHITE + TOKENS_BLACK + TOKENS_EMPTY
ROUND_BLOCKS = tuple(tuple(block_id(stream_key("round", rnd), index) for index in range(SUPPLY_MAX))
                     for rnd in range(ROUND_LIMIT + 1))
SHARK_BLOCKS = tuple(tuple(block_id(stream_key("shark", rnd), index)
                           for index in range(-(-SUPPLY_MAX // WORDS_PER_BLOCK)))
                     for rnd in range(ROUND_LIMIT + 1))
unpack_block = Struct(f"<{WORDS_PER_BLOCK}I").unpack          # the shark's words of 16 cycles
# SHELLS_TAKEN[size][face]: shells a diver takes in the section rolled, from a supply of size (D7).
SHELLS_TAKEN = tuple(tuple(min(shells, size) for shells in SHELLS_BY_FACE) for size in range(SUPPLY_MAX + 1))
# A draw of ``sample(counts=bag)`` over ``size`` tokens is ``(word * size) >> 32`` (when Lemire's
# check keeps the word), and that is below ``count`` exactly when ``word < WORDS_BELOW[size][count]``:
# two comparisons sort a drawn token into white, black or empty, with no big-integer arithmetic.
WORDS_BELOW = tuple(tuple(-(-(count << 32) // size) for count in range(SUPPLY_MAX + 1)) if size else ()
                    for size in range(SUPPLY_MAX + 1))
# Every word that Lemire's check may replace in a draw over 2 to 60 outcomes (the colour die's 6,
# the supply's sizes): a cycle's words holding none of them (all but about one cycle in a
# million) are read with no check per draw; words holding any are read by the stream's own calls.
REJECTABLE = frozenset().union(*(rejected_words(n) for n in range(1, SUPPLY_MAX + 1)))


class DeepDiveState(GameState):
    """A Deep Dive game: always either waiting at C5 for the divers in the water, or over."""

    def __init__(self, num_players: int, seed: int, options: dict, rng):
        super().__init__(num_players, seed, options, rng)
        n = num_players
        self.whites_removed = WHITES_REMOVED[n]
        closed: list[list[str]] = [[] for _ in range(n)]
        self.closed = closed                               # closed shells, in the order taken
        self.black_pile = 0
        self.rounds_completed = 0
        # The public log, one tuple per event: ("cycle", round, cycle, start player,
        # {seat: colour}, shark or None), ("choices", seats at C5, seats leaving),
        # ("surface", seat, the shells it opened), ("round_end", round), ("game_end", reason).
        # Opened shells are only ever read again: what each seat scored (white pearls, black
        # pearls found) and the empties removed are counted from the log when asked.
        self.log: list[tuple] = []
        log = self.log
        self.end_reason: str | None = None
        # Keyed chance is read a block of words at a time straight from the source (same
        # outcomes as its streams' calls, far fewer calls); any other source (a scripted one,
        # a play-order one) is drawn from one call per draw through the round's two streams.
        self._keyed = keyed = type(rng) is KeyedRandom
        self._round_draws: Any = None
        self._shark_draws: Any = None
        # What play changes at every step, in one tuple (one load and one store per apply):
        # round, cycle, start player (D12), the supply as a bag of white, black and empty
        # counts (D10), the seats in the water, those who left this round (the others are
        # scared) and those who took a black pearl this round (bit masks), and the shark's
        # current block of words.
        self._hot = (1, 1, 0, TOKENS_WHITE - WHITES_REMOVED[n], TOKENS_BLACK, TOKENS_EMPTY, 0, 0, 0, ())
        self._acting: list[int] = ACTING_OF[0]           # seats in the water at C5, ascending
        # What ``apply`` reads at every step and never replaces, in one tuple (clone rebinds it).
        self._game = (n, closed, log, keyed, rng, CYCLE_WORDS[n])
        self._apply(None)                                 # R1 of round 1

    def _bind(self) -> None:
        """Rebinds ``apply``'s fixed tuple to this state's own lists (after a clone)."""
        self._game = (self.num_players, self.closed, self.log, self._keyed, self.rng,
                      CYCLE_WORDS[self.num_players])

    # --- engine API (overridden for speed; same contract as the base class) -------------
    def to_act(self) -> list[int]:
        """Seats whose diver is in the water at C5, ascending; ``[]`` exactly when the game is over."""
        return list(self._acting)

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

    def _choice(self, seat: int, action: object) -> int | None:
        """``seat``'s bit (1 << seat) to leave, 0 to stay, None for anything that is not one of the
        two (``seat`` is to act): the choices add up to the mask of the seats leaving."""
        # The shared legal actions themselves (the usual case) are known by identity.
        if action is STAY:
            return 0
        if action is LEAVE:
            return 1 << seat
        if type(action) is dict and len(action) == 1:
            choice = action.get("type")
        elif action in (LEAVE, STAY):
            choice = action["type"]                        # equal to a legal action: a mapping
        else:
            return None
        return 1 << seat if choice == "leave" else 0 if choice == "stay" else None

    def _apply(self, choices: dict | None) -> None:
        """Applies the simultaneous stay/leave choices (validated by the base ``apply``), then plays
        every chance step up to the next C5 or the end of the game; ``None`` from ``__init__``
        starts the game at R1.

        The engine's hot path: one function with the state in local names.
        """
        acting = self._acting
        if choices is None:
            leave = None
        else:
            leave = sum(choices.values())                  # the seats leaving, as a bit mask

        rnd, cycle, start, white, black, empty, water, left, holders, shark_words = self._hot
        n, closed, log, keyed, rng, cycle_words = self._game
        if leave is None:
            new_round = True                               # R1 of round 1
        else:
            new_round = False
            leaving = SEATS_OF[leave]
            log.append(("choices", acting, leaving))
            if leave:
                # C6: every leaving diver surfaces and opens its shells (its pearls are counted
                # from the log; only the black pile matters to the game, and only seats that
                # took a black pearl this round can hold one).
                blacks_out = 0
                for seat in leaving:
                    shells = closed[seat]
                    if holders >> seat & 1:
                        blacks_out += shells.count(BLACK)
                    closed[seat] = []
                    log.append(("surface", seat, shells))
                water ^= leave
                left |= leave
                if blacks_out:
                    self.black_pile += blacks_out
                    # C7: the fourth black pearl ends the game.
                    if self.black_pile >= BLACK_PEARLS_TO_END:
                        self._hot = (rnd, cycle, start, white, black, empty, water, left, holders, shark_words)
                        self._final_surfacing(END_BLACK)
                        return
            # C8: the divers who stayed dive again; nobody left in the water ends the round.
            if water:
                cycle += 1
        while True:
            if not water:
                if not new_round:
                    # R-end (C4 or C8): nobody is left in the water.
                    self.rounds_completed += 1
                    log.append(("round_end", rnd))
                    if self.rounds_completed >= ROUND_LIMIT:
                        self._hot = (rnd, cycle, start, white, black, empty, water, left, holders, shark_words)
                        self.end_reason = END_ROUNDS
                        log.append(("game_end", END_ROUNDS))
                        self._acting = ACTING_OF[0]
                        return
                    start = (start + 1) % n
                    rnd += 1
                new_round = False
                # R1: every diver enters the water (with no closed shell: a round ends only
                # once every diver has surfaced or been scared); the round's chance opens.
                cycle = 1
                water = ALL_SEATS[n]
                left = holders = 0
                shark_words = ()
                if not keyed:
                    self._round_draws = rng.stream("round", rnd)
                    self._shark_draws = rng.stream("shark", rnd)
            # C1 (dive step, in seat order from the start player; every diver in the water
            # rolls, so this cycle's rolls are exactly the positions of the divers in the water).
            rolls: dict[int, str] = {}
            size = white + black + empty
            if keyed:
                unpack, dives = cycle_words[start][water]
                words = unpack(rng.block(ROUND_BLOCKS[rnd][cycle - 1]))
                if not REJECTABLE.isdisjoint(words):
                    dives = ()               # about one cycle in a million: see REJECTABLE
                    draws = rng.stream("round", rnd)
                    draws.skip(WORDS_PER_BLOCK * (cycle - 1))
                    white, black, empty = self._dive_by_calls(draws, start, water, white, black, empty, rolls)
                    holders = ALL_SEATS[n]             # (a hint only: count them all)
                    size = white + black + empty
                # Block c - 1 of the round's stream: four words for each seat in seat order
                # from the start player (colour, then up to three shells), found exactly as
                # ``choice`` and ``sample(counts=...)`` find them: (word * n) >> 32.
                for seat, at in dives:
                    face = (words[at] * 6) >> 32
                    rolls[seat] = COLOURS[face]
                    k = SHELLS_TAKEN[size][face]
                    if k:
                        # The shells are drawn from a supply of size, size - 1, size - 2; written out
                        # three times, not looped: a loop (its range, its index arithmetic) was a
                        # measurable part of a 4-player game, which has no time to spare.
                        shells = closed[seat]
                        word = words[at + 1]
                        below = WORDS_BELOW[size]
                        if word < below[white]:
                            white -= 1
                            shells.append(WHITE)
                        elif word < below[white + black]:
                            black -= 1
                            shells.append(BLACK)
                            holders |= 1 << seat
                        else:
                            empty -= 1
                            shells.append(EMPTY)
                        if k > 1:
                            word = words[at + 2]
                            below = WORDS_BELOW[size - 1]
                            if word < below[white]:
                                white -= 1
                                shells.append(WHITE)
                            elif word < below[white + black]:
                                black -= 1
                                shells.append(BLACK)
                                holders |= 1 << seat
                            else:
                                empty -= 1
                                shells.append(EMPTY)
                            if k > 2:
                                word = words[at + 3]
                                below = WORDS_BELOW[size - 2]
                                if word < below[white]:
                                    white -= 1
                                    shells.append(WHITE)
                                elif word < below[white + black]:
                                    black -= 1
                                    shells.append(BLACK)
                                    holders |= 1 << seat
                                else:
                                    empty -= 1
                                    shells.append(EMPTY)
                        size -= k
            else:
                white, black, empty = self._dive_by_calls(self._round_draws, start, water, white, black, empty,
                                                          rolls)
                holders = ALL_SEATS[n]                 # (a hint only: count them all)
                size = white + black + empty
            # C2: an empty supply ends the game before the shark (D7).
            if not size:
                log.append(("cycle", rnd, cycle, start, rolls, None))
                self._hot = (rnd, cycle, start, white, black, empty, water, left, holders, shark_words)
                self._final_surfacing(END_SUPPLY)
                return
            # C3's shark roll: draw c - 1 of the round's shark stream.
            if keyed:
                index = (cycle - 1) & 15
                if not index:
                    shark_words = unpack_block(rng.block(SHARK_BLOCKS[rnd][(cycle - 1) >> 4]))
                word = shark_words[index]
                product = word * 6
                if (product & MASK32) < 6:
                    shark = COLOURS[rng.stream("shark", rnd).below_at(cycle - 1, word, 6)]
                else:
                    shark = COLOURS[product >> 32]
            else:
                shark = self._shark_draws.choice(COLOURS)
            log.append(("cycle", rnd, cycle, start, rolls, shark))
            # C3: the shark scares every diver in the rolled section (D3, D6, D10).
            if shark in rolls.values():
                for seat in SEATS_OF[water]:
                    if rolls[seat] == shark:
                        shells = closed[seat]
                        if shells:
                            # The shells go back into the bag: no order, so no reshuffle.
                            whites = shells.count(WHITE)
                            blacks = shells.count(BLACK) if holders >> seat & 1 else 0
                            white += whites
                            black += blacks
                            empty += len(shells) - whites - blacks
                            closed[seat] = []
                        water ^= 1 << seat
                # C4: nobody left in the water ends the round.
                if not water:
                    continue
            # C5: the divers in the water decide.
            self._hot = (rnd, cycle, start, white, black, empty, water, left, holders, shark_words)
            self._acting = ACTING_OF[water]
            return

    def _dive_by_calls(self, draws, start: int, water: int, white: int, black: int, empty: int,
                       rolls: dict) -> tuple[int, int, int]:
        """C1 from any source, one call per draw: fills ``rolls`` with the cycle's ``{seat: colour}``,
        adds the shells taken to the divers' closed shells and returns the bag left.

        Cycle c of round r takes block c - 1 of the round's stream: four draws for each seat,
        in seat order from the start player (its colour, then one per shell, up to three;
        unused ones are skipped), the rest of the block unused.
        """
        closed = self.closed
        order = ORDERS[self.num_players][start]
        bag = [white, black, empty]
        size = white + black + empty
        for seat in order:
            if not water >> seat & 1:
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
        return bag[0], bag[1], bag[2]

    def _final_surfacing(self, reason: str) -> None:
        """Section 6, cases a and b: every diver still in the water surfaces and scores (D9)."""
        rnd, cycle, start, white, black, empty, water, left, holders, shark_words = self._hot
        closed = self.closed
        for seat in ORDERS[self.num_players][start]:
            if water >> seat & 1:
                shells = closed[seat]
                self.black_pile += shells.count(BLACK)
                closed[seat] = []
                self.log.append(("surface", seat, shells))
        self._hot = (rnd, cycle, start, white, black, empty, 0, left | water, holders, shark_words)
        self.end_reason = reason
        self.log.append(("game_end", reason))
        self._acting = ACTING_OF[0]

    def _opened(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """What the surfaced shells held, from the log: (white pearls per seat, black pearls
        found per seat, empties removed). Kept with the log's length it was counted at, so
        the views of one position (every seat's observation) count once."""
        counted = self.__dict__.get("_opened_at")
        log = self.log
        if counted is not None and counted[0] == len(log):
            return counted[1]
        whites = [0] * self.num_players
        blacks = [0] * self.num_players
        empties = 0
        for entry in log:
            if entry[0] == "surface":
                seat, shells = entry[1], entry[2]
                whites[seat] += shells.count(WHITE)
                blacks[seat] += shells.count(BLACK)
                empties += shells.count(EMPTY)
        opened = (tuple(whites), tuple(blacks), empties)
        self._opened_at = (len(log), opened)
        return opened

    def clone(self) -> DeepDiveState:
        """An independent copy (explicit, faster than a deep copy); the chance streams are copied too."""
        twin = object.__new__(type(self))
        fields = self.__dict__.copy()
        if not self._keyed:
            # Keyed chance keeps no stream (the source is immutable, shared); others are copied.
            fields["rng"], (fields["_round_draws"], fields["_shark_draws"]) = copy_chance(
                self.rng, (self._round_draws, self._shark_draws))
        fields["options"] = dict(self.options)
        fields["log"] = self.log[:]                        # its entries are never changed
        fields["closed"] = [shells[:] for shells in self.closed]
        twin.__dict__ = fields
        twin._bind()
        return twin

    # --- hooks of the base class (used by anything that calls them directly) ------------
    def _to_act(self) -> list[int]:
        # The shared read-only list itself (the base class only reads it; to_act() gives a copy).
        return self._acting

    def _legal_actions(self, seat: int) -> list[dict]:
        return LEGAL

    def _result(self) -> dict:
        scores = list(self._opened()[0])
        return {"scores": scores, "ranks": ranks_from_scores(scores), "end_reason": self.end_reason}

    # --- views ----------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The round being played (the last one once the game is over)."""
        return self._hot[0]

    @property
    def cycle(self) -> int:
        return self._hot[1]

    @property
    def start_player(self) -> int:
        return self._hot[2]

    @property
    def bag(self) -> list[int]:
        """The supply's [white, black, empty] counts (a bag, D10)."""
        return list(self._hot[3:6])

    def _last_cycle(self) -> tuple:
        """The log entry of the most recent cycle (there is one from the start: R1 and C1 run
        in ``new_state``)."""
        log = self.log
        for index in range(len(log) - 1, -1, -1):
            if log[index][0] == "cycle":
                return log[index]
        raise AssertionError("no cycle played")

    def _public(self) -> dict:
        rnd, cycle, start, white, black, empty, water, left = self._hot[:8]
        rolls, shark = self._last_cycle()[4:]
        pearls, blacks_found, empties_removed = self._opened()
        closed = self.closed
        n = self.num_players
        in_water = [bool(water >> seat & 1) for seat in range(n)]
        return {
            "round": rnd,
            "cycle": cycle,
            "start_player": start,
            "num_players": n,
            "sections": [{"colour": colour, "shells": SHELLS[colour]} for colour in COLOURS],
            "players": [
                {"in_water": in_water[seat],
                 "status": DIVING if in_water[seat] else LEFT if left >> seat & 1 else SCARED,
                 # A diver's position is its last roll while it stays in the water (C1 rolls
                 # every diver in it).
                 "position": rolls.get(seat) if in_water[seat] else None,
                 "closed_shells": len(closed[seat]),
                 "white_pearls": pearls[seat], "black_found": blacks_found[seat]}
                for seat in range(n)
            ],
            "last_colour_rolls": {str(seat): rolls[seat] for seat in sorted(rolls)},
            "last_shark_roll": shark,
            "black_pile": self.black_pile,
            "empties_removed": empties_removed,
            "supply_size": white + black + empty,
            # Unopened tokens (supply + closed shells), by content: what has not surfaced yet.
            "unopened": {"white": TOKENS_WHITE - self.whites_removed - sum(pearls),
                         "black": TOKENS_BLACK - self.black_pile,
                         "empty": TOKENS_EMPTY - empties_removed},
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
        view["to_act"] = list(self._acting)
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
        shells = entry[2]
        return {"type": "surface", "seat": entry[1], "white": shells.count(WHITE), "black": shells.count(BLACK),
                "empty": shells.count(EMPTY)}
    if kind == "round_end":
        return {"type": "round_end", "round": entry[1]}
    return {"type": "game_end", "reason": entry[1]}
