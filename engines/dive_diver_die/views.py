"""What each seat, a spectator and the replay see of a Dive! Diver! Die! game (§5): the public
table, a seat's own hidden cards, and the public events since a seat's last decision. A mixin
of ``DiveDiverDieState``."""

from __future__ import annotations

import copy

from engines.dive_diver_die.rules import DECISION_RECORDS, Table


class StateViews(Table):
    """Observations, the spectator view and the full view of ``DiveDiverDieState``."""

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
