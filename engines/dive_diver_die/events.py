"""The event cards of Dive! Diver! Die! (§4.5): which a seat may play in an event window, in
canonical order, and what each does when played. A mixin of ``DiveDiverDieState``."""

from __future__ import annotations

from typing import Any

from engines.dive_diver_die.rules import EVENT_ORDER, GOLD_BONUS, OXYGEN_DIE, Table, set_by_now


class EventCards(Table):
    """The §4.5 event-card rules of ``DiveDiverDieState`` (its state, its streams)."""

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
        plays: list[dict[str, Any]] = []
        for card in EVENT_ORDER:
            if card not in held:
                continue
            if card == "perilous_dive":
                if active and not seat.perilous:
                    plays.append({"type": "play_event", "card": card})
            elif card == "bonus_happy":
                chosen = set_by_now(seat.chosen)          # windows open in the dive phase only
                if status == "searching" and self.assigned[chosen] and not seat.arm:
                    if chosen >= 4 and not seat.got_gold:
                        plays.append({"type": "play_event", "card": card, "take": "gold"})
                    if (self.jewel_on and self.jewel_holder is None and not seat.got_clue
                            and self.board_clues[chosen] is not None):
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
                if (active and set_by_now(seat.chosen) <= 5 and not seat.got_gold and not seat.got_clue
                        and not seat.arm):
                    plays.append({"type": "play_event", "card": card})
        return plays

    def _play_event(self, index: int, action: dict) -> None:
        """Resolve one play_event at once and completely; the card goes to the public discard."""
        seat = self.seats[index]
        card = action["card"]
        seat.events.remove(card)
        record: dict[str, Any] = {"seat": index, "dive": self.dive}
        record.update((k, v) for k, v in action.items() if k != "type")
        if "seats" in record:
            record["seats"] = list(record["seats"])
        self.event_discard.append(record)
        seats = self.seats
        if card == "perilous_dive":
            seat.perilous = True
        elif card == "bonus_happy":
            chosen = set_by_now(seat.chosen)
            if action["take"] == "gold":
                seat.bonus += GOLD_BONUS[chosen]
                seat.got_gold = True
            else:
                seat.temp_clues.append([self.board_clues[chosen], chosen])
                self.board_clues[chosen] = None
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
            self._check_assignment(set_by_now(seat.chosen))

    # --- §4.6 end of dive, §6 result ----------------------------------------------------------
