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

from engines.core import GameState, ranks_from_scores
from engines.rng import copy_chance

# Every table is still importable from here, as before the rules, events and views moved out.
from engines.dive_diver_die.rules import (  # noqa: F401
    CLUE_TOKENS, DECISION_RECORDS, DIVER, DIVES, EVENT_CARDS, EVENT_ORDER, GOLD_BONUS, GOLD_PER_SEARCH, JEWEL_VALUE,
    OXYGEN_DIE, SOLE_SURVIVOR_BONUS, Seat, set_by_now)
from engines.dive_diver_die.events import EventCards
from engines.dive_diver_die.views import StateViews


class DiveDiverDieState(EventCards, StateViews, GameState):
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
        legal: list[dict]
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
                     for t in range(1, set_by_now(self.seats[seat].max_card) + 1)]
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
        reveals = 2 if any(set_by_now(s.chosen) >= 5 for s in self.seats) else 1   # D9
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
            seat.depth = min(seat.depth + self._step(seat), set_by_now(seat.chosen))
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
            chosen = set_by_now(seat.chosen)
            amount = GOLD_PER_SEARCH[chosen + 1 if seat.arm else chosen]
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
        self.oxygen += set_by_now(seat.max_card) - turns
        self.arrivals += 1
        seat.arrival = self.arrivals
        seat.status = "searching"
        self.stage = "end"
        self.history.append(["duration", index, turns, self.oxygen])
        self._check_assignment(set_by_now(seat.chosen))

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
                clue = self.board_clues[depth]
                if clue is not None:
                    self.clues_removed.append(clue)
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
        self._check_assignment(set_by_now(seat.chosen))

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
        group.sort(key=lambda i: (-set_by_now(seats[i].duration), seats[i].arrival))
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
        if self.pending_bonus is None:
            raise AssertionError("choose_bonus is asked only while a bonus is pending")
        depth, ranked = self.pending_bonus
        self.pending_bonus = None
        self._give(ranked[0], kind, depth)
        if len(ranked) > 1:
            self._give(ranked[1], "clue" if kind == "gold" else "gold", depth)

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
        # The log only grows, by entries built when appended and never changed after: its copy
        # shares them (a deep copy was 80 % of the cost of a clone late in a game, which luck
        # accounting makes thousands of times per game).
        twin.log = list(self.log)
        twin.history = [list(entry) for entry in self.history]
        twin._cache = {}
        if self.pending_bonus is not None:
            twin.pending_bonus = (self.pending_bonus[0], list(self.pending_bonus[1]))
        return twin
