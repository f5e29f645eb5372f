"""The state of one Deep Sea Adventure game (rules: docs/rules/deep_sea_adventure.md).

Internal representation, chosen for speed:
  * a chip is an int id 0..31: level ``id // 8 + 1``, value ``(id // 8) * 4 + (id % 8) // 2``
    (so each level holds two chips of each of its four values, section 2);
  * an item is a tuple of 1..3 chip ids (a stack has 2 or 3);
  * the path is a list with one entry per space: an item, or ``None`` for a blank space;
  * ``pos[s]`` is the diver's position (0 = submarine; returned divers are at 0).

A diver that did not return (it drowned) is back at position 0 once its round ends, with
``returned`` still false: the compaction renumbers the path, so its old space may no longer
exist (position 20 of a 19-space path). Between rounds this is the next round's start (every
diver begins in the submarine, 4.1); after the last round, or an early end (D16), it is the
final position, so no view ever shows a position beyond the path.
Chip ids and values never leave the state except through ``full_view`` (section 5).
"""

from __future__ import annotations

import copy
from typing import Any

from engines.core import GameState, ranks_from_scores
from engines.rng import copy_chance

NUM_ROUNDS = 3
FULL_AIR = 25
LEVELS = 4
CHIPS_PER_LEVEL = 8
MAX_STACK = 3
# D17: each die is a d6 showing 1, 2 or 3 twice. A roll is one ``random()`` draw that picks
# one of the six faces: ``DIE_FACES[int(random() * 6)]`` (the cheapest draw of a stream).
# A script rolls face f with any float in [(f - 1) / 3, f / 3), e.g. 0.0, 0.4, 0.7.
DIE_FACES = (1, 1, 2, 2, 3, 3)

CHIP_LEVEL = tuple(chip // CHIPS_PER_LEVEL + 1 for chip in range(LEVELS * CHIPS_PER_LEVEL))
CHIP_VALUE = tuple((chip // CHIPS_PER_LEVEL) * 4 + (chip % CHIPS_PER_LEVEL) // 2
                   for chip in range(LEVELS * CHIPS_PER_LEVEL))

# Canonical actions (section 4.3). They are never handed out: legal_actions returns copies,
# so a caller mutating its list cannot change what the state accepts.
CONTINUE = {"type": "continue"}
TURN_BACK = {"type": "turn_back"}
PASS = {"type": "pass"}
TAKE = {"type": "take"}
Actions = tuple[dict[str, Any], ...]
DIRECTION_ACTIONS: Actions = (CONTINUE, TURN_BACK)
TAKE_ACTIONS: Actions = (PASS, TAKE)
# DROP_ACTIONS[k]: pass, then drop 0..k-1, for a diver with load k on a blank space.
# The load can never exceed the 32 chips of the game.
DROP_ACTIONS: tuple[Actions, ...] = tuple(
    (PASS,) + tuple({"type": "drop", "item": i} for i in range(k))
    for k in range(LEVELS * CHIPS_PER_LEVEL + 1)
)

# Phases of the turn loop in _run.
_START, _MOVE, _SEARCH, _END = 0, 1, 2, 3


def chip_view(chip: int) -> dict:
    """A chip with everything about it (full view only)."""
    return {"id": chip, "level": CHIP_LEVEL[chip], "value": CHIP_VALUE[chip]}


class DeepSeaAdventureState(GameState):
    """A Deep Sea Adventure position; forced moves and chance are played through on creation and apply."""

    def __init__(self, num_players: int, seed: int, options: dict, rng):
        super().__init__(num_players, seed, options, rng)
        # Setup 1: shuffle each level's chips, level 1 first, and lay them out as one-chip spaces.
        # A path space holds a stack of chips (a tuple of ids), or None once it is blank.
        path: list[tuple[int, ...] | None] = []
        for level in range(LEVELS):
            chips = list(range(level * CHIPS_PER_LEVEL, (level + 1) * CHIPS_PER_LEVEL))
            rng.stream("path", level + 1).shuffle(chips)
            path.extend((chip,) for chip in chips)
        self.initial_path = [chip for item in path if item is not None for chip in item]
        self.path = path
        self.length = len(path)  # L, kept in step with the path (it changes only at round end)
        self.round = 1
        self.secured: list[list[int]] = [[] for _ in range(num_players)]
        self.log: list[tuple] = []
        self.last_roll: tuple[int, int, int, int] | None = None
        self.game_over = False
        self.decision: str | None = None
        self._legal: Actions = ()
        self._start_round(0)  # D1: seat 0 starts round 1.
        self._run(_START)

    # --- flow -------------------------------------------------------------------------
    def _start_round(self, start_seat: int) -> None:
        n = self.num_players
        self.air = FULL_AIR  # D3
        self.pos = [0] * n
        self.up = [False] * n
        self.returned = [False] * n
        self.carried: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
        self.return_order: list[int] = []
        self.start_seat = start_seat
        self.current = start_seat
        self.last_turn = False
        # Keyed chance: the dice of seat s in this round come from stream ("dice", round, s),
        # two draws a turn (die A, die B), so its t-th turn of the round rolls draws 2t and
        # 2t + 1 whatever the other seats did.
        stream = self.rng.stream
        self._dice = [stream("dice", self.round, seat) for seat in range(n)]

    def _run(self, phase: int) -> None:
        """Play on from ``phase`` of the current turn until a real decision is pending or the game ends."""
        # Locals for speed; the per-round lists are re-read after a round ends (they are replaced).
        log = self.log
        positions = self.pos  # the mover's own start never lies on its way (no sharing)
        up = self.up
        n = self.num_players
        while True:
            s = self.current
            carried = self.carried[s]
            k = len(carried)
            if phase == _START:
                # Step 1: reduce the air by the load; the turn that empties it is the last (D5).
                if k:
                    air = self.air - k
                    if air <= 0:
                        air = 0
                        self.last_turn = True
                    self.air = air
                # Step 2: direction (skipped in the submarine, D7, or when already going up).
                pos = positions[s]
                if pos and not up[s]:
                    length = self.length
                    deeper = pos + 1
                    while deeper <= length and deeper in positions:
                        deeper += 1
                    if deeper > length:
                        # D8: nothing deeper is free, so the diver must turn back.
                        up[s] = True
                        log.append(("act", s, TURN_BACK, True))
                    else:
                        self.decision = "direction"
                        self._legal = DIRECTION_ACTIONS
                        return
                phase = _MOVE
            if phase == _MOVE:
                # Step 3: roll die A, then die B (D17); the diver takes up to
                # m = max(0, A + B - load) steps.
                rand = self._dice[s].random
                a = DIE_FACES[int(rand() * 6)]
                b = DIE_FACES[int(rand() * 6)]
                m = a + b - k
                if m < 0:
                    m = 0
                self.last_roll = roll = (s, a, b, m)
                log.append(("roll",) + roll)
                pos = positions[s]
                if up[s]:
                    for _ in range(m):
                        pos -= 1
                        while pos and pos in positions:
                            pos -= 1
                        if not pos:
                            break
                    if not pos:
                        self._return_to_submarine(s)
                        phase = _END
                    else:
                        positions[s] = pos
                        phase = _SEARCH
                else:
                    length = self.length
                    for _ in range(m):
                        deeper = pos + 1
                        while deeper <= length and deeper in positions:
                            deeper += 1
                        if deeper > length:
                            break
                        pos = deeper
                    positions[s] = pos
                    phase = _SEARCH
            if phase == _SEARCH:
                # Step 4: search the current path space (skipped in the submarine, D7).
                pos = positions[s]
                if pos:
                    if self.path[pos - 1] is not None:
                        self.decision = "search"
                        self._legal = TAKE_ACTIONS
                        return
                    if k:
                        self.decision = "search"
                        self._legal = DROP_ACTIONS[k]
                        return
                    log.append(("act", s, PASS, True))  # D9: only pass is legal.
            # 4.4: after the turn.
            if self.last_turn or len(self.return_order) == n:
                if self._end_round():
                    return
                positions = self.pos
                up = self.up
            else:
                returned = self.returned
                nxt = s + 1
                while True:
                    if nxt == n:
                        nxt = 0
                    if not returned[nxt]:
                        break
                    nxt += 1
                self.current = nxt
            phase = _START

    def _return_to_submarine(self, s: int) -> None:
        self.pos[s] = 0
        self.returned[s] = True
        self.return_order.append(s)
        secured = self.secured[s]
        for item in self.carried[s]:
            secured.extend(item)
        self.carried[s] = []
        self.log.append(("return", s))

    def _end_round(self) -> bool:
        """Section 4.5; True when the game is over, otherwise the next round has started."""
        n = self.num_players
        on_path = sorted((self.pos[s], s) for s in range(n) if not self.returned[s] and self.pos[s])
        if on_path:
            next_start = on_path[-1][1]  # D13: the deepest diver still on the path.
        elif self.return_order:
            next_start = self.return_order[-1]
        else:
            # Unreachable: a round ends after a loaded diver's turn or when all have returned.
            next_start = self.start_seat
        # Drops (D11, D12): closest diver first, chips in carried order, piles of up to 3.
        new_spaces: list[list[int]] = []
        for _, s in on_path:
            for item in self.carried[s]:
                for chip in item:
                    if new_spaces and len(new_spaces[-1]) < MAX_STACK:
                        new_spaces[-1].append(chip)
                    else:
                        new_spaces.append([chip])
        # Compaction: blank spaces go, the new spaces come last.
        compacted: list[tuple[int, ...] | None] = [item for item in self.path if item is not None]
        self.path = compacted + [tuple(space) for space in new_spaces]
        self.length = len(self.path)
        self.log.append(("round_end", self.round, next_start, [s for _, s in on_path if self.carried[s]]))
        # The dropped chips now lie on the path only (this matters after the last round, whose
        # carried lists are not replaced by a new round's).
        # The drowned divers leave the renumbered path: back to the submarine, not returned.
        for _, s in on_path:
            self.carried[s] = []
            self.pos[s] = 0
        if self.round == NUM_ROUNDS or not self.path:  # D16: an empty path ends the game.
            self.game_over = True
            self.decision = None
            self._legal = ()
            return True
        self.round += 1
        self._start_round(next_start)
        return False

    # --- engine API -------------------------------------------------------------------
    def _to_act(self) -> list[int]:
        return [] if self.game_over else [self.current]

    def _legal_actions(self, seat: int) -> list[dict]:
        return [dict(action) for action in self._legal]

    def to_act(self) -> list[int]:
        """Seats that must decide now: the current seat, or ``[]`` once the game is over."""
        return [] if self.game_over else [self.current]

    def legal_actions(self, seat: int) -> list[dict]:
        """The current seat's legal actions in the rules file's order; ``[]`` for every other seat."""
        if seat != self.current or self.game_over:
            return []
        legal = self._legal
        # Fresh dicts on every call (literals for the two common lists: the fastest way).
        if legal is TAKE_ACTIONS:
            return [{"type": "pass"}, {"type": "take"}]
        if legal is DIRECTION_ACTIONS:
            return [{"type": "continue"}, {"type": "turn_back"}]
        return [dict(action) for action in legal]

    def _choice(self, seat: int, action: object) -> int | None:
        """The index of ``action`` in the pending decision's legal actions (``seat`` is to act)."""
        try:
            return self._legal.index(action)
        except ValueError:
            return None

    def _apply(self, choices: dict) -> None:
        self._play(choices[self.current])

    def _play(self, index: int) -> None:
        """Play legal action ``index`` of the pending decision, then run on to the next decision."""
        s = self.current
        legal = self._legal
        self.log.append(("act", s, legal[index], False))
        if legal is DIRECTION_ACTIONS:
            if index:
                self.up[s] = True
            self._run(_MOVE)
            return
        if index:
            space = self.pos[s] - 1
            if legal is TAKE_ACTIONS:
                item = self.path[space]
                if item is None:                 # take is offered only on a space with chips
                    raise AssertionError("take offered on a blank space")
                self.carried[s].append(item)
                self.path[space] = None
            else:  # DROP_ACTIONS: index i drops carried item i - 1
                self.path[space] = self.carried[s].pop(index - 1)
        self._run(_END)

    def clone(self) -> DeepSeaAdventureState:
        """An independent copy (RNG included): applying actions to it never touches this state."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        # Items are immutable tuples and canonical actions are never mutated: shallow copies suffice.
        twin.rng, twin._dice = copy_chance(self.rng, self._dice)
        twin.options = copy.deepcopy(self.options)
        twin.path = list(self.path)
        twin.initial_path = list(self.initial_path)
        twin.secured = [list(chips) for chips in self.secured]
        twin.log = list(self.log)
        twin.pos = list(self.pos)
        twin.up = list(self.up)
        twin.returned = list(self.returned)
        twin.carried = [list(items) for items in self.carried]
        twin.return_order = list(self.return_order)
        return twin

    # --- results ----------------------------------------------------------------------
    def _level_counts(self, seat: int) -> list[int]:
        counts = [0, 0, 0, 0]
        for chip in self.secured[seat]:
            counts[CHIP_LEVEL[chip] - 1] += 1
        return counts

    def _result(self) -> dict:
        scores = [sum(CHIP_VALUE[chip] for chip in chips) for chips in self.secured]
        counts = [self._level_counts(s) for s in range(self.num_players)]
        # D15: score, then the number of level-4, level-3, level-2 and level-1 chips.
        keys = [(scores[s], counts[s][3], counts[s][2], counts[s][1], counts[s][0])
                for s in range(self.num_players)]
        return {"scores": scores, "ranks": ranks_from_scores(keys), "level_counts": counts}

    # --- views ------------------------------------------------------------------------
    def _public(self) -> dict:
        """Everything public (section 5), shared by observations and the spectator view."""
        roll = self.last_roll
        return {
            "round": self.round,
            "air": self.air,
            "current_seat": None if self.game_over else self.current,
            "decision": self.decision,
            "start_seat": self.start_seat,
            "return_order": list(self.return_order),
            "last_roll": None if roll is None else {"seat": roll[0], "dice": [roll[1], roll[2]], "moves": roll[3]},
            "path": [
                {"blank": True, "levels": []} if item is None
                else {"blank": False, "levels": [CHIP_LEVEL[chip] for chip in item]}
                for item in self.path
            ],
            "divers": [
                {
                    "position": self.pos[s],
                    "direction": "up" if self.up[s] else "down",
                    "returned": self.returned[s],
                    "carried": [[CHIP_LEVEL[chip] for chip in item] for item in self.carried[s]],
                    "secured_levels": [CHIP_LEVEL[chip] for chip in self.secured[s]],
                }
                for s in range(self.num_players)
            ],
        }

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know: the public state, the values of its own secured chips (D14)
        and ``events``, the public log since its previous decision."""
        if not (type(seat) is int and 0 <= seat < self.num_players):
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        view: dict[str, Any] = {"me": seat}
        view.update(self._public())
        view["my_secured_values"] = [CHIP_VALUE[chip] for chip in self.secured[seat]]
        view["events"] = self.events_since_decision(seat)
        return view

    def events_since_decision(self, seat: int) -> list[dict]:
        """The public log from ``seat``'s previous decision on (that action first), or from the
        start of the game before its first one: what a player at the table saw happen.

        Found from the log itself (the seat's last action that was not forced), so playing
        costs nothing more.
        """
        log = self.log
        start = 0
        for index in range(len(log) - 1, -1, -1):
            entry = log[index]
            if entry[0] == "act" and entry[1] == seat and not entry[3]:
                start = index
                break
        return [self._event_view(entry) for entry in log[start:]]

    def spectator_view(self) -> dict:
        """The public state and the public log (rolls, actions, returns, round ends); no chip values."""
        view: dict[str, Any] = {"num_players": self.num_players, "game_over": self.game_over}
        view.update(self._public())
        view["log"] = [self._log_view(entry) for entry in self.log]
        return view

    def full_view(self) -> dict:
        """Everything: chip ids and values on the path, carried and secured, the initial path, the seed."""
        view = self.spectator_view()
        view["seed"] = self.seed
        view["initial_path"] = [chip_view(chip) for chip in self.initial_path]
        view["path_chips"] = [None if item is None else [chip_view(chip) for chip in item] for item in self.path]
        view["last_turn"] = self.last_turn
        view["legal_actions"] = [dict(action) for action in self._legal]
        for s, diver in enumerate(view["divers"]):
            diver["carried_chips"] = [[chip_view(chip) for chip in item] for item in self.carried[s]]
            diver["secured_chips"] = [chip_view(chip) for chip in self.secured[s]]
        if self.game_over:
            view["result"] = self._result()
        return view

    @staticmethod
    def _log_view(entry: tuple, key: str = "event") -> dict:
        """A log entry as the spectator log shows it (``key`` names its kind: "event" there,
        "type" in an observation's ``events``)."""
        kind = entry[0]
        if kind == "roll":
            return {key: "roll", "seat": entry[1], "dice": [entry[2], entry[3]], "moves": entry[4]}
        if kind == "act":
            return {key: "action", "seat": entry[1], "action": dict(entry[2]), "forced": entry[3]}
        if kind == "return":
            return {key: "return", "seat": entry[1]}
        return {key: "round_end", "round": entry[1], "next_start_seat": entry[2], "dropping_seats": list(entry[3])}

    @classmethod
    def _event_view(cls, entry: tuple) -> dict:
        return cls._log_view(entry, "type")
