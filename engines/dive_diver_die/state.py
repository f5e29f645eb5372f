"""State of Dive! Diver! Die! (D3), rule by rule after /work/shared/rules/dive_diver_die.md.

Section numbers (§), steps (P1..P6, E1..E6) and decisions (D1..D29) in comments refer to
that file. The state is a resumable machine: ``_run`` plays every automatic step until a
seat must decide (prepare, choose_depth, an event window, choose_duration, choose_bonus)
or the game is over. All chance comes from ``self.rng``, in the order the rules describe.

Keyed chance: every draw comes from the stream of the place it sits, so a seat slot meets the
same chance whatever the others chose. Setup: ("removed", seat), ("event_deck"),
("oxygenator"), ("clues"). Each dive d: ("common", d) shuffles the contributed cards (listed
in seat order), ("treasure", d) rolls the two treasure dice, ("clue_refill", d) refills the
depths 6..1 at E3 (one draw per depth, an unused one skipped); a seat s draws its own-turn
oxygen rolls from ("oxygen", d, s) (its k-th move of the dive rolls draw k), its Wall rolls
from ("wall", d, s), the Swordfish rolls of the cards it plays from ("swordfish", d, s) and the
card it gives with Sabotage from ("sabotage", d, s). The shared decks are drawn as the rules
say (the event deck's top card clockwise from the start player, the Oxygenator's top card),
so who gets which of their cards follows the play.
"""

from __future__ import annotations

import copy

from collections.abc import Mapping

from engines.core import GameState, IllegalAction, ranks_from_scores
from engines.rng import copy_chance

DIVES = 4
GOLD_PER_SEARCH = (0, 1, 2, 4, 6, 8, 10)          # G[d], index = depth (D3)
GOLD_BONUS = (0, 0, 0, 0, 3, 4, 5)                # B[d] (D4)
OXYGEN_DIE = (-3, -2, -1, -1, 0, 1)               # D7
JEWEL_VALUE = 50
SOLE_SURVIVOR_BONUS = 20
CLUE_TOKENS = ("D2", "D3", "D4", "D5", "D6", "T2", "T3", "T4", "T5", "T6")   # D5
EVENT_CARDS = (                                   # table order of §4.5 = canonical order (D20)
    ("perilous_dive", 8), ("bonus_happy", 6), ("sabotage", 6), ("wall_d", 6),
    ("wall_f", 6), ("swordfish", 8), ("toughest_diver", 4), ("long_robotic_arm", 6),
)
EVENT_ORDER = tuple(card for card, _ in EVENT_CARDS)
DIVER = frozenset(("descending", "searching", "ascending"))
# History records of the table's decisions (for observations' ``events``): kept out of the
# ``dive_log`` and ``history`` views, which list what the rules did.
DECISION_RECORDS = frozenset(("dive", "prepared", "decided"))


class Seat:
    """Everything one seat owns: permanent (hand, gold, clues) and per-dive (status, loot)."""

    __slots__ = (
        "hand", "events", "removed", "gold", "jewel", "clues", "status", "depth", "chosen",
        "max_card", "max_face_down", "contributed", "duration", "tokens", "arrival", "found",
        "bonus", "temp_clues", "perilous", "wall", "swordfish", "arm", "got_gold", "got_clue",
    )

    def __init__(self, removed: list[int]):
        self.removed = removed
        self.hand = [v for v in range(1, 11) if v not in removed]
        self.events: list[str] = []
        self.gold = 0
        self.jewel = False
        self.clues: list[str] = []
        self.reset()

    def reset(self) -> None:
        """P1: the per-dive fields."""
        self.status = "descending"
        self.depth = 0
        self.chosen = None
        self.max_card = None          # value while in front of the seat (face down or revealed)
        self.max_face_down = False
        self.contributed = None
        self.duration = None
        self.tokens = 0
        self.arrival = None
        self.found = 0
        self.bonus = 0
        self.temp_clues: list[list] = []   # [clue, depth it was taken from]
        self.perilous = False
        self.wall = None              # None, "d" or "f"
        self.swordfish = None         # None, "stay" or "double"
        self.arm = False
        self.got_gold = False
        self.got_clue = False

    def copy(self) -> Seat:
        """An independent copy (lists copied, scalars shared)."""
        twin = Seat.__new__(Seat)
        for name in Seat.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.hand = list(self.hand)
        twin.events = list(self.events)
        twin.clues = list(self.clues)
        twin.temp_clues = [list(pair) for pair in self.temp_clues]
        return twin

    def public(self, seat: int, phase: str) -> dict:
        """What every seat may see of this seat (§5)."""
        face_up = self.max_card if (self.max_card is not None and not self.max_face_down) else None
        return {
            "seat": seat,
            "gold": self.gold,
            "score": self.gold + (JEWEL_VALUE if self.jewel else 0),
            "jewel": self.jewel,
            "clues": list(self.clues),
            "status": self.status,
            "depth": self.depth,
            "chosen_depth": self.chosen,
            "max_card": face_up,
            "max_card_face_down": self.max_face_down,
            "duration": self.duration,
            "tokens_left": self.tokens,
            "arrival": self.arrival,
            "found_gold": self.found,
            "bonus_gold": self.bonus,
            "temp_clues": [clue for clue, _ in self.temp_clues],
            "perilous": self.perilous,
            "wall": self.wall,
            "swordfish": self.swordfish,
            "long_robotic_arm": self.arm,
            "received_gold_bonus": self.got_gold,
            "received_clue": self.got_clue,
            "hand_size": len(self.hand),
            "event_hand_size": len(self.events),
            "submitted": phase != "prepare",
        }

    def private(self) -> dict:
        """What only this seat may see of itself (§5)."""
        return {
            "hand": sorted(self.hand),
            "events": list(self.events),
            "max_card": self.max_card if self.max_face_down else None,
            "contributed": self.contributed,
        }


class DiveDiverDieState(GameState):
    """One position of a game of Dive! Diver! Die!."""

    def __init__(self, num_players, seed, options, rng):
        super().__init__(num_players, seed, options, rng)
        self.jewel_on = bool(options["jewel"])
        # Chance outcomes that are not in the public history (full view only); the oxygen,
        # Wall and Swordfish rolls are public and recorded in ``history`` instead.
        self.log: list[list] = []
        self.history: list[list] = []               # public record of what happened, all dives
        self.dive_start = 0                         # where the current dive begins in history
        # §3 setup, in the order of the rules file.
        self.start = 0                                             # 1 (D29)
        self.seats = []
        for seat in range(num_players):                            # 2
            removed = sorted(rng.stream("removed", seat).sample(list(range(1, 11)), 2))
            self.log.append(["removed", seat, removed])
            self.seats.append(Seat(removed))
        self.event_deck = [card for card, count in EVENT_CARDS for _ in range(count)]
        rng.stream("event_deck").shuffle(self.event_deck)          # 3 (top = index 0)
        self.oxygenator = list(range(1, 11))
        rng.stream("oxygenator").shuffle(self.oxygenator)
        self.log.append(["event_deck", list(self.event_deck)])
        self.log.append(["oxygenator_deck", list(self.oxygenator)])
        self.board_gold = list(GOLD_BONUS)                         # 4
        self.board_clues = [None] * 7                              # index = depth
        self.supply: list[str] = []
        if self.jewel_on:                                          # 5
            clues = list(CLUE_TOKENS)
            rng.stream("clues").shuffle(clues)
            self.log.append(["clues", list(clues)])
            self.board_clues[1:7] = clues[:6]
            self.supply = sorted(clues[6:])
        self.jewel_holder = None
        self.dive = 1                                              # 6
        self.oxygenator_discard: list[int] = []
        self.common_revealed: list[int] = []
        self.event_discard: list[dict] = []
        self.max_discard: list[dict] = []
        self.clues_removed: list[str] = []
        self._cache: dict = {}
        self._start_dive()

    # --- flow -----------------------------------------------------------------------------
    def _start_dive(self) -> None:
        """P1 reset and P2 event draws; then the simultaneous prepare decision."""
        for seat in self.seats:
            seat.reset()
        self.dive_start = len(self.history)
        self.history.append(["dive", self.dive, self.start])
        self.divers = self.num_players               # seats descending, searching or ascending
        self.oxygen = 0
        self.common: list[int] = []
        self.pile = 0
        self.assigned = [False] * 7
        self.arrivals = 0
        self.pending_bonus = None      # (depth, [rank-1 seat, rank-2 seat?]) while choose_bonus waits
        self.slot = self.start
        self.stage = "start"
        self.slot_full = False
        self.depth_turn = self.start
        n = self.num_players
        stream = self.rng.stream
        self._oxygen = [stream("oxygen", self.dive, seat) for seat in range(n)]
        self._streams: dict = {}       # the dive's other per-seat streams, opened when first used
        for k in range(n):                                          # P2
            self.seats[(self.start + k) % n].events.append(self.event_deck.pop(0))
        self.phase = "prepare"

    def to_act(self) -> list[int]:
        """Seats that must decide now, in seat order; ``[]`` exactly when the game is over."""
        return self._to_act()

    def _to_act(self) -> list[int]:
        if self.pending_bonus is not None:
            return [self.pending_bonus[1][0]]
        phase = self.phase
        if phase == "dive":
            return [self.slot]
        if phase == "prepare":
            return list(range(self.num_players))
        if phase == "choose_depth":
            return [self.depth_turn]
        return []

    def _decision(self) -> str | None:
        if self.pending_bonus is not None:
            return "choose_bonus"
        if self.phase == "dive":
            return "choose_duration" if self.stage == "duration" else "event_window"
        return {"prepare": "prepare", "choose_depth": "choose_depth"}.get(self.phase)

    def _legal_actions(self, seat: int) -> list[dict]:
        cached = self._cache.get(seat)
        if cached is not None:
            return cached
        if self.pending_bonus is not None:
            legal = [{"type": "choose_bonus", "bonus": "gold"}, {"type": "choose_bonus", "bonus": "clue"}]
        elif self.phase == "prepare":
            hand = self.seats[seat].hand
            values = sorted(set(hand))
            legal = [{"type": "prepare", "oxygen": a, "duration": b}
                     for a in values for b in values if a != b or hand.count(a) >= 2]
        elif self.phase == "choose_depth":
            legal = [{"type": "choose_depth", "depth": d} for d in range(1, 7)]
        elif self.stage == "duration":
            legal = [{"type": "choose_duration", "turns": t}
                     for t in range(1, self.seats[seat].max_card + 1)]
        else:
            legal = self._plays(seat) + [{"type": "end_window"}]
        self._cache[seat] = legal
        return legal

    def legal_actions(self, seat: int) -> list[dict]:
        """The legal actions of ``seat`` in canonical order (§4.5); ``[]`` when it is not to act.

        The list is the caller's own (a bot may filter or sort it in place); the engine keeps
        its cached copy to validate ``apply``. The action dicts are shared: do not mutate them.
        """
        cached = self._cache.get(seat)       # only seats to act are ever cached
        if cached is not None:
            return list(cached)
        if seat not in self._to_act():
            return []
        return list(self._legal_actions(seat))

    def apply(self, actions: Mapping[int, dict]) -> None:
        """Apply one action per seat to act; IllegalAction leaves the state unchanged."""
        if type(actions) is not dict and not isinstance(actions, Mapping):
            raise IllegalAction("apply() takes a mapping {seat: action}")
        to_act = self._to_act()
        if not to_act:
            raise IllegalAction("the game is over")
        if len(actions) != len(to_act):
            raise IllegalAction(f"expected actions for seats {to_act}, got {sorted(actions, key=str)}")
        chosen = {}
        for seat in to_act:
            if seat not in actions:
                raise IllegalAction(f"expected actions for seats {to_act}, got {sorted(actions, key=str)}")
            legal = self._cache.get(seat) or self._legal_actions(seat)
            try:
                # The engine's own copy of the action (1 == True == 1.0 in a dict comparison).
                chosen[seat] = legal[legal.index(actions[seat])]
            except ValueError:
                raise IllegalAction(f"seat {seat}: {actions[seat]!r} is not a legal action") from None
        self._apply(chosen)

    def _apply(self, actions: dict[int, dict]) -> None:
        self._cache = {}
        if self.phase == "prepare" and self.pending_bonus is None:
            self._prepare(actions)
            # Every seat's cards went face down: the table saw that, and the treasure pile.
            self.history.append(["prepared", self.pile])
            self._run()
            return
        (seat, action), = actions.items()
        # The others' actions are public (only prepare is secret); a copy, as the caller may
        # still hold the legal action dict.
        record = dict(action)
        if "seats" in record:
            record["seats"] = list(record["seats"])
        self.history.append(["decided", seat, record])
        if self.pending_bonus is not None:
            self._choose_bonus(action["bonus"])
        elif self.phase == "choose_depth":
            self._choose_depth(seat, action["depth"])
        else:
            kind = action["type"]
            if kind == "choose_duration":
                self._choose_duration(seat, action["turns"])
            elif kind == "end_window":
                self.stage = "move" if self.slot_full else "end"
            else:
                self._play_event(seat, action)
        self._run()

    def _prepare(self, actions: dict[int, dict]) -> None:
        """P3 (both cards leave the hand), P4 treasure, then the depth choices start."""
        contributed = []
        for seat_index in range(self.num_players):
            seat, action = self.seats[seat_index], actions[seat_index]
            seat.hand.remove(action["oxygen"])
            seat.hand.remove(action["duration"])
            seat.contributed = action["oxygen"]
            seat.max_card = action["duration"]
            seat.max_face_down = True
            contributed.append(action["oxygen"])
        self.rng.stream("common", self.dive).shuffle(contributed)
        self.common = contributed
        self.log.append(["common_deck", list(contributed)])
        dice = self.rng.stream("treasure", self.dive)               # P4: die A, then die B
        a = dice.randint(0, 9)
        b = dice.randint(0, 9)
        self.log.append(["treasure", a, b])
        self.pile = 10 * max(a, b) + min(a, b) or 100
        self.phase = "choose_depth"
        self.depth_turn = self.start

    def _choose_depth(self, seat: int, depth: int) -> None:
        """P5; after the last choice, P6 (Oxygenator) and the dive phase begins."""
        self.seats[seat].chosen = depth
        self.depth_turn = (seat + 1) % self.num_players
        if self.depth_turn != self.start:
            return
        reveals = 2 if any(s.chosen >= 5 for s in self.seats) else 1   # D9
        for _ in range(reveals):
            card = self.oxygenator.pop(0)
            self.oxygenator_discard.append(card)
            self.oxygen += card
            self.history.append(["oxygenator", card, self.oxygen])
        self.phase = "dive"
        self.slot = self.start
        self.stage = "start"

    def _run(self) -> None:
        """Play automatic steps (§4.2-4.6) until a seat must decide or the game is over."""
        seats = self.seats
        n = self.num_players
        while self.pending_bonus is None and self.phase == "dive":
            if not self.divers:
                self._end_dive()
                continue
            stage = self.stage
            slot = self.slot
            if stage == "start":
                seat = seats[slot]
                self.slot_full = seat.status in DIVER
                if not (self.slot_full or (seat.events and self._plays(slot))):
                    self.slot = (slot + 1) % n
                    continue
                self.stage = stage = "window"
            if stage == "window":
                if self.slot_full and seats[slot].status not in DIVER:
                    self.slot = (slot + 1) % n              # ran out during its own window
                    self.stage = "start"
                    continue
                if seats[slot].events:
                    plays = self._plays(slot)
                    if plays:
                        plays.append({"type": "end_window"})
                        self._cache[slot] = plays
                        return
                self.stage = stage = "move" if self.slot_full else "end"
            if stage == "move":
                self._move(slot)
                # A bonus choice its running out triggered is still part of this slot (§4.5).
                if self.stage == "end" and self.pending_bonus is None:
                    self.slot = (slot + 1) % n
                    self.stage = "start"
            elif stage == "duration":
                return
            elif stage == "end":
                self.slot = (slot + 1) % n
                self.stage = "start"

    # --- §4.3 full turn -------------------------------------------------------------------
    def _move(self, index: int) -> None:
        """Step 2 of a full turn: descend, search, ascent turn or ascend, each with its own roll."""
        seat = self.seats[index]
        history = self.history
        self.stage = "end"
        status = seat.status
        searching = status == "searching" and seat.tokens > 0
        if searching:                                               # search
            seat.tokens -= 1
            history.append(["search", index, seat.tokens])
        elif status == "searching":                                 # ascent turn
            self._discard_max(index)
            seat.status = "ascending"
            seat.depth -= 1
            history.append(["ascent", index, seat.depth])
        elif status == "descending":
            seat.depth = min(seat.depth + self._step(seat), seat.chosen)
            history.append(["move", index, seat.depth])
        else:                                                       # ascending
            seat.depth = max(0, seat.depth - self._step(seat))
            history.append(["move", index, seat.depth])
        # The own-turn oxygen roll (4.4), inlined here because it is the hot path.
        r = self._oxygen[index].choice(OXYGEN_DIE)
        if seat.perilous:
            r *= 2
        oxygen = self.oxygen + r
        history.append(["roll", index, r, oxygen])
        self.oxygen = oxygen
        if oxygen < 0 and not self._cover(index):
            return
        if searching:
            amount = GOLD_PER_SEARCH[seat.chosen + 1 if seat.arm else seat.chosen]
            if seat.perilous:
                amount *= 2
            if seat.wall is not None:
                w = self._stream("wall", index).choice(OXYGEN_DIE)
                history.append(["wall", index, w])
                amount += -w if seat.wall == "d" else w
            taken = min(max(0, amount), self.pile)
            self.pile -= taken
            seat.found += taken
            history.append(["gold", index, taken, self.pile])
        elif status == "descending":
            if seat.depth == seat.chosen:
                seat.max_face_down = False                          # arrival (a): reveal
                history.append(["arrive", index, seat.max_card])
                self.stage = "duration"
        elif seat.depth == 0:
            self._surface(index)

    def _stream(self, kind: str, index: int):
        """Seat ``index``'s stream of ``kind`` in this dive, continuing where it stopped."""
        stream = self._streams.get((kind, index))
        if stream is None:
            stream = self._streams[(kind, index)] = self.rng.stream(kind, self.dive, index)
        return stream

    @staticmethod
    def _step(seat: Seat) -> int:
        """Levels of this move: 1, or 0 / 2 for a pending Swordfish (then cleared)."""
        pending = seat.swordfish
        if pending is None:
            return 1
        seat.swordfish = None
        return 0 if pending == "stay" else 2

    def _choose_duration(self, index: int, turns: int) -> None:
        """Arrival (c)-(e): tokens, released oxygen, arrival number, bonus check."""
        seat = self.seats[index]
        seat.tokens = seat.duration = turns
        self.oxygen += seat.max_card - turns
        self.arrivals += 1
        seat.arrival = self.arrivals
        seat.status = "searching"
        self.stage = "end"
        self.history.append(["duration", index, turns, self.oxygen])
        self._check_assignment(seat.chosen)

    def _surface(self, index: int) -> None:
        """Bank the loot, keep the clues, check for the jewel (§4.3 Surface)."""
        seat = self.seats[index]
        seat.status = "surfaced"
        self.divers -= 1
        seat.gold += seat.found + seat.bonus
        seat.clues.extend(clue for clue, _ in seat.temp_clues)
        seat.temp_clues = []
        self.history.append(["surface", index, seat.found + seat.bonus])
        if (self.jewel_on and self.jewel_holder is None
                and f"D{seat.chosen}" in seat.clues and f"T{seat.duration}" in seat.clues):
            self.jewel_holder = index
            seat.jewel = True
            self.history.append(["jewel", index])
            for depth in range(1, 7):
                if self.board_clues[depth] is not None:
                    self.clues_removed.append(self.board_clues[depth])
                    self.board_clues[depth] = None
            self.clues_removed.extend(self.supply)
            self.supply = []

    # --- §4.4 oxygen, running out, bonuses ---------------------------------------------------
    def _oxygen_roll(self, r: int, index: int) -> bool:
        """apply(r, X) for a roll that is not an own-turn roll (Swordfish); False if X ran out."""
        self.oxygen += r
        return self.oxygen >= 0 or self._cover(index)

    def _cover(self, index: int) -> bool:
        """O < 0: the common oxygen deck covers the deficit, else X runs out (False)."""
        common = self.common
        while self.oxygen < 0 and common:
            card = common.pop(0)
            self.common_revealed.append(card)
            self.oxygen += card
            self.history.append(["common", card, self.oxygen])
        if self.oxygen < 0:
            self._run_out(index)
            return False
        return True

    def _run_out(self, index: int) -> None:
        seat = self.seats[index]
        self.pile += seat.found                                     # 1
        seat.found = 0
        seat.bonus = 0
        for clue, depth in seat.temp_clues:
            if self.jewel_holder is None:
                self.board_clues[depth] = clue
            else:
                self.clues_removed.append(clue)
        seat.temp_clues = []
        self.oxygen = 0                                             # 2
        if seat.max_card is not None and seat.max_face_down:        # 3
            self.oxygen += seat.max_card
        elif seat.status == "searching":
            self.oxygen += seat.tokens
        self._discard_max(index)
        self.history.append(["out", index, self.oxygen, self.pile])
        seat.status = "out"                                         # 4
        self.divers -= 1
        seat.depth = 0
        seat.swordfish = None
        if index == self.slot:
            self.stage = "end"
        self._check_assignment(seat.chosen)

    def _discard_max(self, index: int) -> None:
        seat = self.seats[index]
        if seat.max_card is not None:
            self.max_discard.append({"seat": index, "value": seat.max_card, "dive": self.dive})
            seat.max_card = None
            seat.max_face_down = False

    def _check_assignment(self, depth: int) -> None:
        """Assign the bonuses of ``depth`` once its group is complete (§4.4)."""
        if self.assigned[depth]:
            return
        seats = self.seats
        group = [i for i, s in enumerate(seats)
                 if s.chosen == depth and s.status in DIVER and not s.arm]
        if not group or any(seats[i].duration is None for i in group):
            return
        self.assigned[depth] = True
        group.sort(key=lambda i: (-seats[i].duration, seats[i].arrival))
        gold = self.board_gold[depth] > 0
        clue = self.jewel_on and self.jewel_holder is None and self.board_clues[depth] is not None
        if gold and clue:
            self.pending_bonus = (depth, group[:2])
        elif gold:
            self._give(group[0], "gold", depth)
        elif clue:
            self._give(group[0], "clue", depth)

    def _give(self, index: int, kind: str, depth: int) -> None:
        seat = self.seats[index]
        self.history.append(["bonus", index, kind, self.board_gold[depth] if kind == "gold"
                             else self.board_clues[depth]])
        if kind == "gold":
            seat.bonus += self.board_gold[depth]
            self.board_gold[depth] = 0
            seat.got_gold = True
        else:
            seat.temp_clues.append([self.board_clues[depth], depth])
            self.board_clues[depth] = None
            seat.got_clue = True

    def _choose_bonus(self, kind: str) -> None:
        depth, ranked = self.pending_bonus
        self.pending_bonus = None
        self._give(ranked[0], kind, depth)
        if len(ranked) > 1:
            self._give(ranked[1], "clue" if kind == "gold" else "gold", depth)

    # --- §4.5 event cards -------------------------------------------------------------------
    def _plays(self, index: int) -> list[dict]:
        """Every legal play_event of seat ``index`` in canonical order (end_window excluded)."""
        seat = self.seats[index]
        if not seat.events:
            return []
        held = set(seat.events)
        seats = self.seats
        status = seat.status
        active = status == "descending" or (status == "searching" and seat.tokens > 0)
        plays = []
        for card in EVENT_ORDER:
            if card not in held:
                continue
            if card == "perilous_dive":
                if active and not seat.perilous:
                    plays.append({"type": "play_event", "card": card})
            elif card == "bonus_happy":
                if status == "searching" and self.assigned[seat.chosen] and not seat.arm:
                    if seat.chosen >= 4 and not seat.got_gold:
                        plays.append({"type": "play_event", "card": card, "take": "gold"})
                    if (self.jewel_on and self.jewel_holder is None and not seat.got_clue
                            and self.board_clues[seat.chosen] is not None):
                        plays.append({"type": "play_event", "card": card, "take": "clue"})
            elif card == "sabotage":
                down = [i for i, s in enumerate(seats) if s.status == "descending"]
                for x, a in enumerate(down):
                    for b in down[x + 1:]:
                        plays.append({"type": "play_event", "card": card, "mode": "swap", "seats": [a, b]})
                if seat.hand:
                    for t in down:
                        if t != index:
                            plays.append({"type": "play_event", "card": card, "mode": "hand", "target": t})
            elif card == "wall_d" or card == "wall_f":
                for t, s in enumerate(seats):
                    if s.wall is None and (s.status == "descending"
                                           or (s.status == "searching" and s.tokens > 0)):
                        plays.append({"type": "play_event", "card": card, "target": t})
            elif card == "swordfish":
                for t, s in enumerate(seats):
                    if (s.depth >= 1 and s.swordfish is None
                            and (s.status == "descending" or s.status == "ascending")):
                        plays.append({"type": "play_event", "card": card, "target": t})
            elif card == "toughest_diver":
                if ((status == "searching" or status == "ascending") and seat.got_gold
                        and not seat.arm and self.common):
                    plays.append({"type": "play_event", "card": card})
            elif card == "long_robotic_arm":
                if (active and seat.chosen <= 5 and not seat.got_gold and not seat.got_clue
                        and not seat.arm):
                    plays.append({"type": "play_event", "card": card})
        return plays

    def _play_event(self, index: int, action: dict) -> None:
        """Resolve one play_event at once and completely; the card goes to the public discard."""
        seat = self.seats[index]
        card = action["card"]
        seat.events.remove(card)
        record = {"seat": index, "dive": self.dive}
        record.update((k, v) for k, v in action.items() if k != "type")
        if "seats" in record:
            record["seats"] = list(record["seats"])
        self.event_discard.append(record)
        seats = self.seats
        if card == "perilous_dive":
            seat.perilous = True
        elif card == "bonus_happy":
            if action["take"] == "gold":
                seat.bonus += GOLD_BONUS[seat.chosen]
                seat.got_gold = True
            else:
                seat.temp_clues.append([self.board_clues[seat.chosen], seat.chosen])
                self.board_clues[seat.chosen] = None
                seat.got_clue = True
        elif card == "sabotage":
            if action["mode"] == "swap":
                a, b = (seats[i] for i in action["seats"])
                a.max_card, b.max_card = b.max_card, a.max_card
            else:
                target = seats[action["target"]]
                given = self._stream("sabotage", index).choice(sorted(seat.hand))
                self.log.append(["sabotage_card", index, given])
                seat.hand.remove(given)
                seat.hand.append(target.max_card)
                target.max_card = given
        elif card == "wall_d" or card == "wall_f":
            seats[action["target"]].wall = card[-1]
        elif card == "swordfish":
            t = action["target"]
            r = self._stream("swordfish", index).choice(OXYGEN_DIE)
            self.history.append(["swordfish", t, r, self.oxygen + r])
            if self._oxygen_roll(r, t):
                seats[t].swordfish = "stay" if r < 0 else "double"
        elif card == "toughest_diver":
            total = sum(self.common)
            self.common_revealed.extend(self.common)
            self.common = []
            seat.bonus += total
            self.history.append(["toughest_diver", index, total])
        elif card == "long_robotic_arm":
            seat.arm = True
            self._check_assignment(seat.chosen)

    # --- §4.6 end of dive, §6 result ----------------------------------------------------------
    def _end_dive(self) -> None:
        seats = self.seats
        surfaced = [i for i, s in enumerate(seats) if s.status == "surfaced"]
        if len(surfaced) == 1:                                      # E1
            seats[surfaced[0]].gold += SOLE_SURVIVOR_BONUS
            self.history.append(["sole_survivor", surfaced[0]])
        self.board_gold = list(GOLD_BONUS)                          # E2
        if self.jewel_on and self.jewel_holder is None:             # E3
            refill = self.rng.stream("clue_refill", self.dive)
            for depth in range(6, 0, -1):
                if self.board_clues[depth] is None and self.supply:
                    token = refill.choice(self.supply)
                    self.log.append(["clue_refill", depth, token])
                    self.supply.remove(token)
                    self.board_clues[depth] = token
                    self.history.append(["clue_refill", depth, token])
                else:
                    refill.skip()
        self.pile = 0                                               # E4
        self.common_revealed.extend(self.common)                    # E5
        self.common = []
        if self.dive == DIVES:                                      # E6
            self.phase = "over"
            return
        n = self.num_players
        order = [(self.start + k) % n for k in range(1, n + 1)]
        self.start = min(order, key=self._score)                    # first lowest in that order
        self.dive += 1
        self._start_dive()

    def _score(self, index: int) -> int:
        seat = self.seats[index]
        return seat.gold + (JEWEL_VALUE if seat.jewel else 0)

    def _result(self) -> dict:
        keys = [(self._score(i), 1 if s.jewel else 0, len(s.events)) for i, s in enumerate(self.seats)]
        return {
            "scores": [key[0] for key in keys],
            "ranks": ranks_from_scores(keys),
            "tiebreak": [{"score": k[0], "jewel": bool(k[1]), "event_cards": k[2]} for k in keys],
        }

    # --- views ------------------------------------------------------------------------------
    def _public(self) -> dict:
        phase = self.phase
        return {
            "game": "dive_diver_die",
            "num_players": self.num_players,
            "jewel_option": self.jewel_on,
            "dive": self.dive,
            "phase": phase,
            "decision": self._decision(),
            "to_act": self._to_act(),
            "start_player": self.start,
            "turn_seat": self.slot if phase == "dive" else None,
            "bonus_depth": self.pending_bonus[0] if self.pending_bonus is not None else None,
            "oxygen": self.oxygen,
            "dive_pile": self.pile,
            "board_gold": self.board_gold[1:],
            "board_clues": self.board_clues[1:],
            "assigned": self.assigned[1:],
            "clue_supply": sorted(self.supply),
            "clues_removed": list(self.clues_removed),
            "jewel_holder": self.jewel_holder,
            "common_deck_count": len(self.common),
            "oxygenator_count": len(self.oxygenator),
            "event_deck_count": len(self.event_deck),
            "common_revealed": list(self.common_revealed),
            "oxygenator_discard": list(self.oxygenator_discard),
            "event_discard": copy.deepcopy(self.event_discard),
            "max_cards_discarded": [dict(entry) for entry in self.max_discard],
            "players": [s.public(i, phase) for i, s in enumerate(self.seats)],
            "dive_log": [list(entry) for entry in self.history[self.dive_start:]
                         if entry[0] not in DECISION_RECORDS],
        }

    def observation(self, seat: int) -> dict:
        """The public view plus this seat's own hand, event cards, face-down card and contribution,
        and ``events``, the public history since its previous decision."""
        if not (type(seat) is int and 0 <= seat < self.num_players):
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        view = self._public()
        view["seat"] = seat
        view["you"] = self.seats[seat].private()
        view["events"] = self.events_since_decision(seat)
        return view

    def events_since_decision(self, seat: int) -> list[dict]:
        """The public history from ``seat``'s previous decision on (that decision first: its
        action, or for prepare only that every seat prepared), or from the start of the game
        before its first one: reveals, moves, rolls, gold, bonuses and the others' actions.

        Found from the history itself, so playing costs one record per decision.
        """
        history = self.history
        start = 0
        for index in range(len(history) - 1, -1, -1):
            entry = history[index]
            if entry[0] == "prepared" or (entry[0] == "decided" and entry[1] == seat):
                start = index
                break
        return [_event_view(entry) for entry in history[start:]]

    def spectator_view(self) -> dict:
        """Public information only (§5)."""
        return self._public()

    def full_view(self) -> dict:
        """Everything: private fields of every seat, deck orders, removed cards, chance log."""
        view = self._public()
        view["private"] = [dict(s.private(), removed=list(s.removed),
                                max_card=s.max_card, max_card_face_down=s.max_face_down)
                           for s in self.seats]
        view["common_deck"] = list(self.common)
        view["oxygenator_deck"] = list(self.oxygenator)
        view["event_deck"] = list(self.event_deck)
        view["chance_log"] = copy.deepcopy(self.log)
        view["history"] = [list(entry) for entry in self.history if entry[0] not in DECISION_RECORDS]
        view["seed"] = self.seed
        return view

    def clone(self) -> DiveDiverDieState:
        """An independent copy, faster than a deepcopy (only mutable containers are copied)."""
        twin = DiveDiverDieState.__new__(DiveDiverDieState)
        twin.__dict__.update(self.__dict__)
        twin.rng, (twin._oxygen, twin._streams) = copy_chance(self.rng, (self._oxygen, self._streams))
        twin.options = dict(self.options)
        twin.seats = [s.copy() for s in self.seats]
        for name in ("event_deck", "oxygenator", "board_gold", "board_clues", "supply",
                     "oxygenator_discard", "common_revealed", "max_discard", "clues_removed",
                     "common", "assigned"):
            setattr(twin, name, list(getattr(self, name)))
        twin.event_discard = copy.deepcopy(self.event_discard)
        twin.max_discard = [dict(e) for e in self.max_discard]
        twin.log = copy.deepcopy(self.log)
        twin.history = [list(entry) for entry in self.history]
        twin._cache = {}
        if self.pending_bonus is not None:
            twin.pending_bonus = (self.pending_bonus[0], list(self.pending_bonus[1]))
        return twin


# Field names of each history record's values, in order (observations' ``events``).
_EVENT_FIELDS = {
    "dive": ("dive", "start_player"),
    "prepared": ("dive_pile",),
    "decided": ("seat", "action"),
    "oxygenator": ("card", "oxygen"),
    "move": ("seat", "depth"),
    "search": ("seat", "tokens_left"),
    "ascent": ("seat", "depth"),
    "roll": ("seat", "roll", "oxygen"),
    "wall": ("seat", "roll"),
    "gold": ("seat", "gold", "dive_pile"),
    "arrive": ("seat", "max_card"),
    "duration": ("seat", "turns", "oxygen"),
    "surface": ("seat", "banked"),
    "jewel": ("seat",),
    "common": ("card", "oxygen"),
    "out": ("seat", "oxygen", "dive_pile"),
    "bonus": ("seat", "bonus", "value"),
    "swordfish": ("seat", "roll", "oxygen"),
    "toughest_diver": ("seat", "gold"),
    "sole_survivor": ("seat",),
    "clue_refill": ("depth", "clue"),
}
_EVENT_TYPES = {"dive": "dive_start", "decided": "decision"}


def _event_view(entry: list) -> dict:
    """One history record as an observation's ``events`` shows it."""
    kind = entry[0]
    event = {"type": _EVENT_TYPES.get(kind, kind)}
    event.update(zip(_EVENT_FIELDS[kind], entry[1:]))
    if kind == "decided":
        event["action"] = copy.deepcopy(event["action"])
    return event
